//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/testrig/proctest"
)

// `warden run` with the box on (the real binary, its fake agent s in the
// statewriter mode, the team file's dir its work dir and the state dir's
// parent): s's writes to state.json, its record, events.jsonl, STATUS.md,
// a record of its own, the handoff are each refused as read-only (EROFS);
// its hook message reaches warden through the hook socket (its answer is
// recorded), its spool, hook.log and work dir take its writes. With
// sandbox = "off" the same writes all work.
func TestRunKeepsTheStateDirReadOnlyForAgents(t *testing.T) {
	defer proctest.AssertNone(t)
	if ok, why := box.WallsAvailable(); !ok {
		t.Skip("no walls here: " + why)
	}
	for _, sandbox := range []string{"box", "off"} {
		out := filepath.Join(t.TempDir(), "out")
		team := opsTeam(t, "sandbox = \""+sandbox+"\"\ncheckpoint_interval = \"10m\"\ncheckpoint_timeout = \"5s\"",
			opsAgent{name: "s", mode: "statewriter:out=" + out, task: true})
		cmd, _ := runWarden(t, "run", team)
		var tries string
		for deadline := time.Now().Add(30 * time.Second); !strings.HasSuffix(tries, "done\n") && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			b, _ := os.ReadFile(out)
			tries = string(b)
		}
		state := stateOf(team)
		record := filepath.Join(state, "checkpoints", "s-T1.json")
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, _ := os.ReadFile(record); strings.Contains(string(b), "VIA-HOOK") {
				break
			}
		}
		stopRun(cmd)
		t.Logf("sandbox = %s, s's tries:\n%s", sandbox, tries)
		if b, _ := os.ReadFile(record); !strings.Contains(string(b), "VIA-HOOK") {
			t.Errorf("sandbox = %s: the answer s's hook sent is not recorded", sandbox)
		}
		for _, name := range []string{"state.json", "checkpoints/s-T1.json", "events.jsonl", "STATUS.md", "checkpoints/s-forged.json", "handoff.md"} {
			p := filepath.Join(state, name)
			line := ""
			for _, l := range strings.Split(tries, "\n") {
				if strings.HasPrefix(l, "write "+p+": ") {
					line = l
				}
			}
			refused := strings.HasSuffix(line, ": read-only file system")
			if sandbox == "box" && !refused || sandbox == "off" && line != "write "+p+": allowed" {
				t.Errorf("sandbox = %s: s's write of %s: %q", sandbox, name, line)
			}
		}
		for _, want := range []string{"hook: allowed", "spool: allowed", "hook.log: allowed", "work: allowed"} {
			if !strings.Contains(tries, want) {
				t.Errorf("sandbox = %s: s's tries lack %q", sandbox, want)
			}
		}
	}
}
