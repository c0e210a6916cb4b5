//go:build !e2e

package land

import (
	"os"
	"path/filepath"
	"testing"
)

// land.json: written 0600 and read back; the land tasks the next land
// merges are each stop's newest, once complete — an older one is never
// merged on its own again.
func TestTheRecordKeepsTheLandTasks(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "land.json")
	if r, err := ReadRecord(path); err != nil || len(r.Hands) != 0 {
		t.Fatalf("no record: %+v %v", r, err)
	}
	r := Record{Good: "abc", Hands: []Hand{
		{ID: "land.T5", Branch: "b/land.T5", Stop: Wait{Task: "T5"}},
		{ID: "land.T12", Branch: "b/land.T12", Stop: Wait{Task: "T12"}},
		{ID: "land.T12.2", Branch: "b/land.T12.2", Stop: Wait{Task: "T12"}},
	}}
	if err := r.Write(root, path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("land.json: %v %v", fi.Mode(), err)
	}
	got, err := ReadRecord(path)
	if err != nil || got.Good != "abc" || len(got.Hands) != 3 || got.Attempts("T12") != 2 {
		t.Fatalf("read back %+v %v", got, err)
	}
	done := map[string]bool{"land.T5": true, "land.T12": true}
	var ids []string
	for _, res := range got.Resolutions(func(id string) bool { return done[id] }) {
		ids = append(ids, res.ID)
	}
	if len(ids) != 1 || ids[0] != "land.T5" {
		t.Errorf("resolutions %v, want land.T5 (land.T12.2 not complete: land.T12 is not merged on its own)", ids)
	}
	done["land.T12.2"] = true
	if rs := got.Resolutions(func(id string) bool { return done[id] }); len(rs) != 2 || rs[1].ID != "land.T12.2" || rs[1].Lands != "T12" {
		t.Errorf("resolutions %+v", rs)
	}
}
