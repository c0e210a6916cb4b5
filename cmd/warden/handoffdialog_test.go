//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// Ctrl-C while an agent waits on a dialog (Claude Code's, drawn by the fake
// TUI): the handoff says so — the agent's row, the dialog as its screen
// showed it under "Dialogs open at the stop", and in its task's resumption
// notes that what it asked for was not done. Nothing was typed into the
// dialog.
func TestHandoffNamesTheDialogOpenAtTheStop(t *testing.T) {
	defer proctest.AssertNone(t)
	dialogLog := filepath.Join(t.TempDir(), "dialog.log")
	team := opsTeam(t, "checkpoint_interval = \"10m\"\ncheckpoint_timeout = \"1s\"",
		opsAgent{name: "w", mode: "tui-dialog:" + dialogLog, profile: "claude", task: true})
	cmd, out := runWarden(t, "run", team)
	waitEvents(t, team, "agent_waiting", "w", 1)
	time.Sleep(200 * time.Millisecond) // state.json and ps: waiting
	if w := agentOf(psOf(t, team), "w"); w["state"] != "waiting" {
		t.Fatalf("w before the stop: %v", w)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", exitCode(err), out.dump())
	}
	b, err := os.ReadFile(filepath.Join(stateOf(team), "handoff.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"(waiting on a dialog: below) |",
		"\n## Dialogs open at the stop\n\n- w (on T1) waited on this dialog; nobody answered it:\n\n",
		"\n      Bash command\n", "\n      curl -s http://127.0.0.1:9/probe > fetched.txt\n", "\n      Do you want to proceed?\n",
		"\n### T1: task 1\n\nWhen the team stopped, w waited on a dialog nobody answered (under Dialogs open at the stop): what it asked for was not done.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("handoff.md lacks %q:\n%s", want, md)
		}
	}
	if log, _ := os.ReadFile(dialogLog); strings.Contains(string(log), "APPROVED") || strings.Contains(string(log), "DENIED") {
		t.Errorf("the dialog was answered at the stop:\n%s", log)
	}
}
