//go:build e2e && linux

package holder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/testrig/proctest"
)

// An agent the holder starts behind the box's walls (holder = true) sees
// the state dir of its request read-only, but its holes and its work dir:
// the walls travel in the StartRequest as they do in runner.Config.
func TestHolderStartsBehindAReadOnlyStateDir(t *testing.T) {
	defer proctest.AssertNone(t)
	if ok, why := box.WallsAvailable(); !ok {
		t.Skip("no walls here: " + why)
	}
	s := filepath.Join(t.TempDir(), ".warden")
	wt, hooks := filepath.Join(s, "worktrees", "T1"), filepath.Join(s, "hooks")
	for _, d := range []string{wt, hooks} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(s, "state.json"), []byte("STATE"), 0o600)
	script := `echo x > ` + s + `/state.json; echo "state:$?"; echo x > ` + hooks + `/a.spool.jsonl; echo "spool:$?"; echo w > work.txt; echo "work:$?"`
	h := serve(t, nil)
	defer h.end(t)
	c := dial(t, h)
	a, err := c.Start(ctx(t), StartRequest{Argv: []string{"sh", "-c", script + "; sleep 1"}, Env: os.Environ(), Dir: wt,
		ReadOnly: []string{s}, Writable: []string{hooks}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := string(readUntil(t, ads[0].Master, ads[0].Output, "the tries", contains("work:")))
	t.Logf("%s", out)
	for _, want := range []string{"Read-only file system", "state:2", "spool:0", "work:0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(s, "state.json")); string(b) != "STATE" {
		t.Errorf("state.json is %q", b)
	}
	select {
	case ev := <-c.Events():
		if ev.Agent.Exit == nil || ev.Agent.Exit.Code != 0 {
			t.Errorf("event %+v; want exit code 0", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit event after 20 s")
	}
}
