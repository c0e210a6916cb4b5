//go:build e2e

package supervisor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/proctest"
)

// A dialog in words no profile knows, drawn in place of the input box
// right after warden's first Enter (fakeagent tui-unknown), with no hook or
// status report saying so: warden types nothing more into it — no second
// Enter, no checkpoint request, no deny keys though on_dialog = "deny", no
// quit keys at the stop — and once it has lasted 3 s it is agent_waiting
// {kind: other} with the dialog's words, and its own WARNING.
func TestUnknownDialogAfterEnterIsWaitedOnNeverTyped(t *testing.T) {
	defer proctest.AssertNone(t)
	log := filepath.Join(t.TempDir(), "keys.log")
	cfg := writeTeam(t, dialogTimers("deny"), fakeAgent{name: "w", mode: "tui-unknown:" + log, profile: "claude"})
	team, out, wait := startTeamCfg(t, cfg)
	waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
	time.Sleep(10 * time.Second) // 2× dialog_timeout, and past stale_failure
	team.Stop(true)
	wait()
	evs := eventsOf(t, cfg)
	lines := dialogLog(t, log)
	if hasPrefix(lines, "DIALOG ") < 0 {
		t.Fatalf("the fake never drew its dialog: %v", lines)
	}
	if i := hasPrefix(lines, "KEY "); i >= 0 {
		t.Errorf("keys reached the unknown dialog: %v", lines)
	}
	e := firstEvent(evs, event.AgentWaiting)
	if e["kind"] != "other" || !strings.Contains(e["text"].(string), "rearrange the attic") {
		t.Errorf("agent_waiting %v", e)
	}
	for _, ev := range []string{event.DialogDenied, event.AgentStalled, event.CheckpointRequested} {
		if n := countEvents(whileWaiting(evs, "w"), ev, "w"); n != 0 {
			t.Errorf("%d %s events while the agent waited", n, ev)
		}
	}
	if !strings.Contains(out.String(), "WARNING: w shows a screen warden does not know in place of its input box") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
