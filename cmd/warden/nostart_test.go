//go:build e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// An agent whose command is not on PATH fails at once: agent_failed with
// "could not start: …" as its reason, its task failed with a line that
// says so, exit 1 within seconds — not after the restart policy's five
// restarts, each failing alike.
func TestCommandNotOnPathFailsAtOnce(t *testing.T) {
	defer proctest.AssertNone(t)
	team := filepath.Join(t.TempDir(), "team.toml")
	os.WriteFile(team, []byte("name = \"t\"\n[[agent]]\nname = \"w\"\ncommand = [\"no-such-cli-for-warden\", \"--go\"]\n"+
		"[[task]]\nid = \"T1\"\nprompt = \"Do it.\"\n"), 0o600)
	var stdout, stderr bytes.Buffer
	cmd := warden("run", team)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if took := time.Since(start); exitCode(err) != 1 || took > 5*time.Second {
		t.Fatalf("exit %d after %s, want 1 at once\n%s\n%s", exitCode(err), took, stdout.String(), stderr.String())
	}
	const why = `could not start: exec: "no-such-cli-for-warden": executable file not found in $PATH`
	if !strings.Contains(stdout.String(), "TASK FAILED: T1 (agent w failed: "+why+")  [w ") {
		t.Errorf("stdout lacks the TASK FAILED line that says why:\n%s", stdout.String())
	}
	failed := eventsNamed(team, "agent_failed", "w")
	if len(failed) != 1 || failed[0]["reason"] != why {
		t.Errorf("agent_failed %v, want one with reason %q", failed, why)
	}
	for _, ev := range []string{"agent_restarted", "agent_started"} {
		if n := len(eventsNamed(team, ev, "w")); n != 0 {
			t.Errorf("%d %s events", n, ev)
		}
	}
}
