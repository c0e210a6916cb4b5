//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// dialogTimers are the defaults' stale ratios (interval 5m, stale 10m /
// 30m) scaled down, with time for the fake TUI to answer; dialog_timeout
// 5 s, and a wait of twice that outlasts stale_failure.
func dialogTimers(on string) string {
	return `checkpoint_interval = "2s"
checkpoint_timeout = "1s"
stale_warning = "4s"
stale_failure = "8s"
shutdown_timeout = "1s"
on_dialog = "` + on + `"
dialog_timeout = "5s"
[[task]]
id = "T1"
prompt = "Create the probe file."
`
}

// dialogLog reads what the fake TUI saw: DIALOG, APPROVED, DENIED, TYPED …, LINE ….
func dialogLog(t *testing.T, path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func hasPrefix(lines []string, p string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, p) {
			return i
		}
	}
	return -1
}

// An agent waiting on an approval dialog (Yes preselected, as Claude Code in
// its default mode, Codex and Gemini CLI draw it) is waiting: agent_waiting
// within 2 s of the dialog, nothing typed into it for twice dialog_timeout
// (no checkpoint request, no quit keys at the stop), never stale or stalled,
// and state.json shows the dialog.
func TestWaitingAgentIsNeverTypedInto(t *testing.T) {
	defer proctest.AssertNone(t)
	log := filepath.Join(t.TempDir(), "dialog.log")
	notified := filepath.Join(t.TempDir(), "notified")
	cfg := writeTeam(t, dialogTimers("wait")+`
[[notify]]
events = ["agent_waiting", "team_done"]
command = ["sh", "-c", "echo \"$WARDEN_EVENT $WARDEN_AGENT $(cat)\" >> `+notified+`"]
`, fakeAgent{name: "w", mode: "tui-dialog:" + log, profile: "claude"})
	team, out, wait := startTeamCfg(t, cfg)
	waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
	// state.json and STATUS.md are written a moment after the event (their
	// writes are coalesced).
	var snap *state.Snapshot
	var status []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		snap, _ = state.ReadSnapshot(cfg.StateDir)
		status, _ = os.ReadFile(filepath.Join(cfg.StateDir, "STATUS.md"))
		if snap != nil && snap.Agents[0].State == state.Waiting && strings.Contains(string(status), "| waiting:") || time.Now().After(deadline) {
			break
		}
	}
	if snap == nil || snap.Agents[0].State != state.Waiting || !strings.Contains(snap.Agents[0].Dialog, "curl -s http://127.0.0.1:9/probe") {
		t.Errorf("state.json: %+v", snap)
	}
	if !strings.Contains(string(status), "| waiting: Bash command |") {
		t.Errorf("STATUS.md:\n%s", status)
	}
	time.Sleep(10 * time.Second) // 2× dialog_timeout, and past stale_failure
	team.Stop(true)
	wait()
	evs := eventsOf(t, cfg)
	lines := dialogLog(t, log)
	if i := hasPrefix(lines, "DIALOG "); i < 0 {
		t.Fatalf("the fake never drew its dialog: %v", lines)
	} else {
		drawn, _ := strconv.ParseInt(strings.TrimPrefix(lines[i], "DIALOG "), 10, 64)
		at, _ := time.Parse(time.RFC3339Nano, firstEvent(evs, event.AgentWaiting)["ts"].(string))
		if d := at.Sub(time.Unix(0, drawn)); d > 2*time.Second || d < 0 {
			t.Errorf("agent_waiting %s after the dialog was drawn, want ≤ 2 s", d)
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "TYPED") || l == "APPROVED" || l == "DENIED" {
			t.Errorf("the dialog was answered or typed into: %v", lines)
			break
		}
	}
	e := firstEvent(evs, event.AgentWaiting)
	if e["kind"] != "permission" || !strings.Contains(e["text"].(string), "Do you want to proceed?") {
		t.Errorf("agent_waiting %v", e)
	}
	var during []map[string]any // from agent_waiting to the stop
	for _, ev := range whileWaiting(evs, "w") {
		if ev["event"] == event.TeamCheckpointStarted {
			break
		}
		during = append(during, ev)
	}
	for _, ev := range []string{event.AgentStale, event.AgentStalled, event.CheckpointRequested, event.CheckpointTimeout, event.DialogDenied} {
		if n := countEvents(during, ev, "w"); n != 0 {
			t.Errorf("%d %s events while the agent waited", n, ev)
		}
	}
	if countEvents(evs, event.AgentWaiting, "w") != 1 || countEvents(evs, event.AgentStarted, "w") != 1 {
		t.Errorf("events: %v", evs)
	}
	if !strings.Contains(out.String(), "WARNING: w waits for a person (permission)") {
		t.Errorf("stdout:\n%s", out.String())
	}
	// The notify command got both events, with the event's JSON on stdin.
	b, _ := os.ReadFile(notified)
	if !strings.Contains(string(b), `agent_waiting w {`) || !strings.Contains(string(b), `"kind":"permission"`) ||
		!strings.Contains(string(b), `team_done  {`) {
		t.Errorf("notifications:\n%s", b)
	}
}

// With on_dialog = "deny" the dialog is answered with the CLI's deny key
// after dialog_timeout — never Yes — and the agent is told to carry on,
// which it does: it answers checkpoint requests again.
func TestDialogDeniedAfterTimeoutThenAgentCarriesOn(t *testing.T) {
	defer proctest.AssertNone(t)
	log := filepath.Join(t.TempDir(), "dialog.log")
	cfg := writeTeam(t, dialogTimers("deny"), fakeAgent{name: "w", mode: "tui-dialog:" + log, profile: "claude"})
	team, out, wait := startTeamCfg(t, cfg)
	waitFor(t, "a checkpoint after the denial", func() bool {
		return countEvents(eventsOf(t, cfg), event.CheckpointReceived, "w") >= 1
	})
	team.Stop(true)
	wait()
	evs := eventsOf(t, cfg)
	lines := dialogLog(t, log)
	denied, note := hasPrefix(lines, "DENIED"), hasPrefix(lines, "LINE warden: nobody could answer")
	if denied < 0 || note < denied || countPrefix(lines, "LINE warden: nobody could answer") != 1 ||
		hasPrefix(lines, "APPROVED") >= 0 || hasPrefix(lines, "TYPED") >= 0 {
		t.Fatalf("the fake saw: %v", lines)
	}
	waiting, _ := time.Parse(time.RFC3339Nano, firstEvent(evs, event.AgentWaiting)["ts"].(string))
	deniedAt, _ := time.Parse(time.RFC3339Nano, firstEvent(evs, event.DialogDenied)["ts"].(string))
	// dialog_timeout runs from when the session saw the dialog, a moment
	// before agent_waiting is written (on a loaded machine 150 ms).
	if d := deniedAt.Sub(waiting); d < 4500*time.Millisecond || d > 7*time.Second {
		t.Errorf("denied %s after agent_waiting, want dialog_timeout (5s)", d)
	}
	for _, ev := range []string{event.AgentStale, event.AgentStalled, event.AgentWarned} {
		if n := countEvents(whileWaiting(evs, "w"), ev, "w"); n != 0 {
			t.Errorf("%d %s events while the agent waited", n, ev)
		}
	}
	if countEvents(evs, event.AgentResumed, "w") != 1 || countEvents(evs, event.DialogDenied, "w") != 1 ||
		countEvents(evs, event.AgentStarted, "w") != 1 {
		t.Errorf("events: %v", evs)
	}
	if !strings.Contains(out.String(), "WARNING: w's dialog was denied after 5s") || !strings.Contains(out.String(), "CHECKPOINT: T1 - implementing") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// A hook's word of a dialog may come before warden has read the frame that
// draws it (the CLI runs the hook as it draws; on a loaded machine warden
// reads the pty later than the hook's socket): the screen warden has then
// still shows the CLI at its prompt, from before the dialog, and must not
// end the hook's word. The fake CLI here runs the hook first, then draws.
func TestHookDialogBeforeItsFrameIsAnnounced(t *testing.T) {
	defer proctest.AssertNone(t)
	useWardenBin(t)
	if _, text := dialogLatency(t, "hook-first"); text != "approve Bash: curl -s http://127.0.0.1:9/probe > fetched.txt" {
		t.Errorf("agent_waiting text %q, want the hook's", text)
	}
}

// A dialog in words no profile rule knows is still found when the CLI's
// hook says so (Claude's PermissionRequest), within 1 s.
func TestDialogFoundThroughAHookAlone(t *testing.T) {
	defer proctest.AssertNone(t)
	useWardenBin(t)
	d, text := dialogLatency(t, "hook")
	if d > time.Second {
		t.Errorf("agent_waiting %s after the dialog, want ≤ 1 s through a hook", d)
	}
	if text != "approve Bash: curl -s http://127.0.0.1:9/probe > fetched.txt" {
		t.Errorf("agent_waiting text %q, want the hook's", text)
	}
}
