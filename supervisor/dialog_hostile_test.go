//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// hasControl reports whether s holds a control character other than a
// newline or a tab (C0, DEL, C1), or an invisible one (U+202E, U+200B …).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r != '\n' && r != '\t' && protocol.IsControl(r) || protocol.IsInvisible(r)
	})
}

// A dialog announced through a hook whose payload holds escape sequences
// (a clipboard write, a C1 clear screen, a window title, NUL, CR): the
// agent_waiting event, state.json, STATUS.md and warden's stdout carry the
// dialog's words without a single control character, and without the
// right-to-left override that would make them read otherwise.
func TestHookDialogTextWithEscapesIsMadePlain(t *testing.T) {
	defer proctest.AssertNone(t)
	useWardenBin(t)
	log := filepath.Join(t.TempDir(), "dialog.log")
	cfg := writeTeam(t, dialogTimers("wait"), fakeAgent{name: "w", mode: "tui-dialog:" + log + ":hook-hostile", profile: "claude"})
	team, out, wait := startTeamCfg(t, cfg)
	for deadline := time.Now().Add(20 * time.Second); countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			// The fake CLI logs what its hook did: why its message never came.
			t.Fatalf("timed out waiting for agent_waiting; the fake CLI's log: %q", dialogLog(t, log))
		}
	}
	// state.json and STATUS.md are written a moment after the event (their
	// writes are coalesced): read them once they say the agent waits.
	var snap *state.Snapshot
	var status []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if snap, err = state.ReadSnapshot(cfg.StateDir); err != nil {
			t.Fatal(err)
		}
		status, _ = os.ReadFile(filepath.Join(cfg.StateDir, "STATUS.md"))
		if snap.Agents[0].State == state.Waiting && strings.Contains(string(status), "waiting:") || time.Now().After(deadline) {
			break
		}
	}
	team.Stop(true)
	wait()

	text, _ := firstEvent(eventsOf(t, cfg), event.AgentWaiting)["text"].(string)
	if !strings.Contains(text, "approve Bash: curl") || !strings.Contains(text, "evil") || hasControl(text) {
		t.Errorf("agent_waiting text %q: want the hook's words, no control character", text)
	}
	if snap.Agents[0].State != state.Waiting || !strings.Contains(snap.Agents[0].Dialog, "evil") || hasControl(snap.Agents[0].Dialog) {
		t.Errorf("state.json agent: state %s, dialog %q", snap.Agents[0].State, snap.Agents[0].Dialog)
	}
	if !strings.Contains(string(status), "waiting: approve Bash: curl") || hasControl(string(status)) {
		t.Errorf("STATUS.md:\n%q", status)
	}
	if s := out.String(); !strings.Contains(s, "WARNING: w waits for a person (permission): approve Bash: curl") || hasControl(s) {
		t.Errorf("stdout:\n%q", s)
	}
}
