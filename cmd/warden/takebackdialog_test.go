//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// A dialog open when warden is killed with -9 is announced again by the
// warden that takes its agent back — the same dialog id, the agent
// waiting on it in ps — and never answered by the take-back: nothing is
// typed into it until a person answers it with warden answer, which the
// agent then gets.
func TestDialogOpenAtTheKillIsAnnouncedAgain(t *testing.T) {
	defer proctest.AssertNone(t)
	dialogLog := filepath.Join(t.TempDir(), "dialog.log")
	team := opsTeam(t, "holder = true\ncheckpoint_interval = \"2s\"\ncheckpoint_timeout = \"1s\"",
		opsAgent{name: "w", mode: "tui-dialog:" + dialogLog, profile: "claude", task: true})
	cmd, _ := runWarden(t, "run", team)
	first := waitEvents(t, team, "agent_waiting", "w", 1)[0]
	id, _ := first["dialog_id"].(string)
	if id == "" {
		t.Fatalf("agent_waiting without a dialog id: %v", first)
	}
	cmd2, _ := kill9ThenRun(t, cmd, team, "w")
	defer stopRun(cmd2)
	again := waitEvents(t, team, "agent_waiting", "w", 2)[1]
	if again["dialog_id"] != id {
		t.Errorf("announced again with dialog id %v, want %s", again["dialog_id"], id)
	}
	if w := agentOf(psOf(t, team), "w"); w["state"] != "waiting" || !strings.Contains(w["dialog"].(string), "Do you want to proceed?") {
		t.Errorf("ps after the take-back: %v", w)
	}
	time.Sleep(500 * time.Millisecond)
	b, _ := os.ReadFile(dialogLog)
	if s := string(b); strings.Count(s, "DIALOG") != 1 || strings.Contains(s, "TYPED") || strings.Contains(s, "APPROVED") || strings.Contains(s, "DENIED") {
		t.Fatalf("the take-back typed into the dialog, or the agent drew it anew:\n%s", s)
	}
	if out, errOut, code := wardenCmd("answer", team, "w", "deny", "--dialog", id); code != 0 {
		t.Fatalf("warden answer after the take-back: exit %d, %q %s", code, out, errOut)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(dialogLog); strings.Contains(string(b), "DENIED") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(dialogLog)
			t.Fatalf("the answer never reached the dialog:\n%s", b)
		}
	}
}
