//go:build !e2e

package state

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
)

var testKey = bytes.Repeat([]byte{7}, keySize)

// sealedStore is newStore sealing with testKey, stamping run R1, with the
// records OnUntrusted reports collected.
func sealedStore(t *testing.T) (*Store, *[]string) {
	s, _ := newStore(t)
	s.SetKey(testKey)
	s.SetRun("R1")
	var said []string
	s.OnUntrusted = func(file string, cp *protocol.Checkpoint, why string) { said = append(said, file+": "+why) }
	return s, &said
}

// A record full of what agents write — hostile text, invalid UTF-8, a
// zone that is not UTC, floats, extra keys — reads back as warden's: the
// seal covers the bytes as they come back from the file.
func TestASealSurvivesTheRoundTrip(t *testing.T) {
	s, said := sealedStore(t)
	c := cp(40)
	fill(reflect.ValueOf(c))
	c.Agent, c.TaskID, c.CheckpointID = "w1", "T060", "c1"
	c.Notes = "bad \xff\xfe utf-8 <script>&amp;"
	c.Extra = map[string]string{"z": hostile, "a": "\xc3"}
	cost := 0.1 + 0.2
	c.Usage = &protocol.Usage{CostUSD: &cost, Unpriced: []string{"m"}}
	c.UpdatedAt = time.Date(2026, 11, 22, 3, 0, 0, 123456789, time.FixedZone("X", 5*3600+1800))
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Mac, "record:") {
		t.Fatalf("saved without a seal: %q", c.Mac)
	}
	got, err := s.Load("w1", "T060")
	if err != nil || got == nil || got.CheckpointID != "c1" {
		t.Fatalf("warden's own record not trusted: %+v %v (%v)", got, err, *said)
	}
	if latest := s.Latest("T060", "R1", time.Time{}); latest == nil || latest.CheckpointID != "c1" {
		t.Errorf("latest %+v", latest)
	}
	if err := s.NoteUsage("w1", "T060", "c1", protocol.Usage{Tokens: protocol.Tokens{Input: 9}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("w1", "T060"); got == nil || got.Usage.Tokens.Input != 9 {
		t.Errorf("a record completed by warden is no longer warden's: %+v", got)
	}
	if len(*said) != 0 {
		t.Errorf("reported untrusted: %v", *said)
	}
}

// One byte changed anywhere in a record makes it not warden's: never read
// as a record, reported once (not on every read).
func TestOneByteChangedIsNotWardens(t *testing.T) {
	s, said := sealedStore(t)
	if err := s.Save(cp(40)); err != nil {
		t.Fatal(err)
	}
	p := s.path("w1", "T060")
	orig, _ := os.ReadFile(p)
	for _, change := range []struct{ from, to string }{
		{`"progress_percent": 40`, `"progress_percent": 41`},
		{`write tests`, `write test5`},
		{`"run_id": "R1"`, `"run_id": "R2"`},
		{`"mac": "record:`, `"mac": "complete:`},
	} {
		b := bytes.Replace(orig, []byte(change.from), []byte(change.to), 1)
		if bytes.Equal(b, orig) {
			t.Fatalf("%q not in the record", change.from)
		}
		os.WriteFile(p, b, 0o600)
		*said = nil
		for range 2 {
			if got, _ := s.Load("w1", "T060"); got != nil {
				t.Errorf("%s: a changed record read as warden's", change.to)
			}
		}
		if len(*said) != 1 || !strings.Contains((*said)[0], "w1-T060.json: its seal does not match") {
			t.Errorf("%s: reported %v, want once", change.to, *said)
		}
		if done, _ := s.CompletedTasks("R1"); done["T060"] {
			t.Errorf("%s: completes the task", change.to)
		}
	}
	// Its seal taken off, in a run warden seals: nobody's.
	var m map[string]any
	json.Unmarshal(orig, &m)
	delete(m, "mac")
	b, _ := json.Marshal(m)
	os.WriteFile(p, b, 0o600)
	if got, _ := s.Load("w1", "T060"); got != nil {
		t.Errorf("a record without a seal read as warden's in a sealed run")
	}
}

// The forgery and its variants: only warden's archive of a
// verified task is a completion — not a record of warden's copied to an
// archive's name (status complete, its verify failed), not one renamed
// from another task, not an archive of another run, and never by its name.
func TestOnlyWardensArchiveCompletes(t *testing.T) {
	s, said := sealedStore(t)
	done := cp(100)
	done.Status, done.CheckpointID = protocol.StatusComplete, "done"
	if err := s.Save(done); err != nil {
		t.Fatal(err)
	}
	latest := s.path("w1", "T060")
	b, _ := os.ReadFile(latest)
	os.WriteFile(filepath.Join(s.dir, "w1-T060-complete.json"), b, 0o600) // copied, not archived
	if c, _ := s.CompletedTasks("R1"); c["T060"] {
		t.Errorf("a record copied to an archive's name completes its task")
	}
	if len(*said) != 0 {
		t.Errorf("a record of warden's said untrusted: %v", *said)
	}
	if err := s.Archive("w1", "T060"); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.CompletedTasks("R1"); !c["T060"] {
		t.Errorf("warden's own archive does not complete its task")
	}
	if c, _ := s.CompletedTasks("R2"); c["T060"] {
		t.Errorf("an archive completes a task of another run")
	}
	arch, _ := os.ReadFile(filepath.Join(s.dir, "w1-T060-complete.json"))
	if !bytes.Contains(arch, []byte(`"mac": "complete:`)) {
		t.Errorf("archive:\n%s", arch)
	}
	// Renamed: still the completion of its own task (it says which), and
	// never a point to resume from.
	os.Rename(filepath.Join(s.dir, "w1-T060-complete.json"), filepath.Join(s.dir, "w1-T060.json"))
	if c, _ := s.CompletedTasks("R1"); !c["T060"] {
		t.Errorf("warden's archive under another name no longer completes its task")
	}
	if l := s.Latest("T060", "R1", time.Time{}); l != nil && strings.HasPrefix(l.Mac, SealComplete) {
		t.Errorf("an archive offered as a point to resume from")
	}
}

// Archive takes only a record warden sealed: one an agent put in place of
// the latest file is not archived as complete.
func TestArchiveRefusesARecordThatIsNotWardens(t *testing.T) {
	s, _ := sealedStore(t)
	if err := s.Save(cp(100)); err != nil {
		t.Fatal(err)
	}
	p := s.path("w1", "T060")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte("write tests"), []byte("nothing left"), 1), 0o600)
	if err := s.Archive("w1", "T060"); err == nil {
		t.Errorf("a forged latest record archived as complete")
	}
	if c, _ := s.CompletedTasks("R1"); c["T060"] {
		t.Errorf("the task is complete")
	}
}

// An older warden's records (no seal, a run with no sealed record) are
// trusted to resume from but complete nothing; SealLegacy seals them as
// they are, its archives as records, and from then on a record without a
// seal in that run is nobody's.
func TestAnOlderWardensRecordsAreSealedOnce(t *testing.T) {
	old, _ := newStore(t)
	old.SetRun("R1")
	done := cp(100)
	done.Status, done.CheckpointID = protocol.StatusComplete, "done"
	old.Save(done)
	if err := old.Archive("w1", "T060"); err != nil {
		t.Fatal(err)
	}
	open := cp(30)
	open.TaskID, open.CheckpointID = "T070", "open"
	old.Save(open)

	s, said := sealedStore(t)
	s.dir, s.hist = old.dir, old.hist
	s.SetKey(testKey)
	if l := s.Latest("T070", "R1", time.Time{}); l == nil || l.CheckpointID != "open" {
		t.Errorf("an older warden's record is no point to resume from: %+v", l)
	}
	if c, _ := s.CompletedTasks("R1"); c["T060"] {
		t.Errorf("an older warden's archive completes its task")
	}
	n, reopened, err := s.SealLegacy("R1")
	if err != nil || n < 4 || len(reopened) != 1 || reopened[0] != "T060" {
		t.Fatalf("sealed %d, reopened %v, %v", n, reopened, err)
	}
	if n, _, _ := s.SealLegacy("R1"); n != 0 {
		t.Errorf("sealed again: %d", n)
	}
	if l := s.Latest("T070", "R1", time.Time{}); l == nil || l.CheckpointID != "open" || !strings.HasPrefix(l.Mac, "record:") {
		t.Errorf("sealed record: %+v", l)
	}
	if c, _ := s.CompletedTasks("R1"); c["T060"] {
		t.Errorf("an older warden's archive, sealed, completes its task")
	}
	if l := s.Latest("T060", "R1", time.Time{}); l == nil || l.CheckpointID != "done" {
		t.Errorf("the older warden's completed task has nothing to resume (and verify) from: %+v", l)
	}
	planted := cp(90)
	planted.TaskID, planted.CheckpointID, planted.RunID, planted.UpdatedAt = "T070", "planted", "R1", time.Now()
	b, _ := json.Marshal(planted)
	os.WriteFile(filepath.Join(s.dir, "w9-T070.json"), b, 0o600)
	if l := s.Latest("T070", "R1", time.Time{}); l == nil || l.CheckpointID != "open" {
		t.Errorf("a record planted without a seal after the run was sealed: %+v", l)
	}
	if len(*said) != 1 || !strings.Contains((*said)[0], "w9-T070.json: it carries no seal") {
		t.Errorf("reported %v", *said)
	}
}

// The key: made 0600 in a 0700 directory on first use, the same key after;
// a key others may read, a link, or one of another size is refused.
func TestRecordKey(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	p, err := KeyPath(func(k string) string { return env[k] })
	if err != nil || p != filepath.Join(home, ".local", "state", "warden", "records.key") {
		t.Fatalf("key path %q %v", p, err)
	}
	env["XDG_STATE_HOME"] = filepath.Join(home, "xdg")
	if p, _ = KeyPath(func(k string) string { return env[k] }); p != filepath.Join(home, "xdg", "warden", "records.key") {
		t.Fatalf("key path %q", p)
	}
	k1, err := LoadKey(p)
	if err != nil || len(k1) != keySize {
		t.Fatalf("key %d bytes, %v", len(k1), err)
	}
	fi, _ := os.Stat(p)
	di, _ := os.Stat(filepath.Dir(p))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("key %v in dir %v", fi.Mode().Perm(), di.Mode().Perm())
	}
	if k2, err := LoadKey(p); err != nil || !bytes.Equal(k1, k2) {
		t.Errorf("a second load made another key: %v", err)
	}
	os.Chmod(p, 0o640) // a scheduler's volume: the pod's own group
	if k, err := LoadKey(p); err != nil || !bytes.Equal(k, k1) {
		t.Errorf("a key of this process's group: %v", err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("the key left %v", fi.Mode().Perm())
	}
	os.Chmod(p, 0o644)
	if _, err := LoadKey(p); err == nil || !strings.Contains(err.Error(), "may be read or written by others") {
		t.Errorf("a key others may read: %v", err)
	}
	os.Chmod(p, 0o600)
	os.WriteFile(p, []byte("short"), 0o600)
	if _, err := LoadKey(p); err == nil || !strings.Contains(err.Error(), "not one warden made") {
		t.Errorf("a short key: %v", err)
	}
	os.Remove(p)
	other := filepath.Join(home, "other")
	os.WriteFile(other, k1, 0o600)
	os.Symlink(other, p)
	if _, err := LoadKey(p); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a key that is a link: %v", err)
	}
	if !KeyInside(p, home) || KeyInside(p, filepath.Join(home, "work")) {
		t.Errorf("KeyInside")
	}
}
