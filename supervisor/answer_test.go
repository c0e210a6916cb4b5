//go:build e2e

package supervisor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// A person answers the dialog a fake TUI (Claude Code's dialog, "1. Yes"
// preselected) waits on, over the control socket as warden answer does:
// an answer naming another dialog is refused and types nothing; allow-once
// takes the dialog's Yes (Enter), deny its Esc; dialog_answered says by
// whom, how and what, the agent goes on, and a second answer finds no
// dialog to answer.
func TestPersonAnswersDialog(t *testing.T) {
	for _, c := range []struct{ choice, fake string }{
		{profile.AnswerAllowOnce, "APPROVED"},
		{profile.AnswerDeny, "DENIED"},
	} {
		t.Run(c.choice, func(t *testing.T) {
			defer proctest.AssertNone(t)
			log := filepath.Join(t.TempDir(), "dialog.log")
			cfg := writeTeam(t, dialogTimers("wait"), fakeAgent{name: "w", mode: "tui-dialog:" + log, profile: "claude"})
			team, out, wait := startTeamCfg(t, cfg)
			waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
			seen := firstEvent(eventsOf(t, cfg), event.AgentWaiting)
			id, _ := seen["dialog_id"].(string)
			if q, _ := seen["question"].(string); !strings.Contains(q, "Do you want to proceed?") || strings.Contains(q, "1. Yes") || id == "" {
				t.Errorf("agent_waiting: question %q, dialog_id %q", q, id)
			}
			cl := control.NewClient(cfg.StateDir)
			_, err := cl.Answer("w", control.AnswerRequest{Choice: c.choice, DialogID: "0123456789", Via: "cli"})
			if err == nil || !strings.Contains(err.Error(), "stale answer") {
				t.Errorf("an answer to another dialog: %v", err)
			}
			if lines := dialogLog(t, log); hasPrefix(lines, "TYPED") >= 0 || hasPrefix(lines, c.fake) >= 0 {
				t.Fatalf("the stale answer typed something: %v", lines)
			}
			if _, err := cl.Answer("w", control.AnswerRequest{Choice: "allow-always", DialogID: id, Via: "cli"}); err == nil {
				t.Error("allow-always answered")
			}
			a, err := cl.Answer("w", control.AnswerRequest{Choice: c.choice, DialogID: id, Via: "cli"})
			if err != nil {
				t.Fatalf("answer: %v", err)
			}
			if a.Choice != c.choice || a.DialogID != id || a.Kind != "permission" || !strings.Contains(a.Question, "curl -s") {
				t.Errorf("answered: %+v", a)
			}
			if lines := dialogLog(t, log); hasPrefix(lines, c.fake) < 0 || hasPrefix(lines, "TYPED") >= 0 {
				t.Errorf("the fake TUI saw: %v", lines)
			}
			if _, err := cl.Answer("w", control.AnswerRequest{Choice: c.choice, DialogID: id, Via: "cli"}); err == nil ||
				!strings.Contains(err.Error(), "no dialog") {
				t.Errorf("a second answer: %v", err)
			}
			waitFor(t, "agent_resumed", func() bool { return countEvents(eventsOf(t, cfg), event.AgentResumed, "w") == 1 })
			if c.choice == profile.AnswerDeny {
				// After a person's deny the agent is told once to carry on
				// without that action (Claude Code's Esc leaves it idle at
				// "What should Claude do instead?").
				waitFor(t, "the carry-on line", func() bool { return hasPrefix(dialogLog(t, log), personDenyLine) >= 0 })
			}
			time.Sleep(500 * time.Millisecond) // a second line would arrive by then
			if n := countPrefix(dialogLog(t, log), personDenyLine); (c.choice == profile.AnswerDeny) != (n == 1) || n > 1 {
				t.Errorf("%d carry-on lines after %s: %v", n, c.choice, dialogLog(t, log))
			}
			ans := firstEvent(eventsOf(t, cfg), event.DialogAnswered)
			if ans == nil || ans["by"] != "person" || ans["via"] != "cli" || ans["choice"] != c.choice || ans["dialog_id"] != id {
				t.Errorf("dialog_answered: %v", ans)
			}
			if snap, _ := state.ReadSnapshot(cfg.StateDir); snap == nil || snap.Agents[0].State == state.Waiting {
				t.Errorf("state.json after the answer: %+v", snap)
			}
			team.Stop(true)
			wait()
			if !strings.Contains(out.String(), "DIALOG ANSWERED: w's dialog (permission: Bash command) answered "+c.choice+" by a person through warden answer") {
				t.Errorf("stdout:\n%s", out.String())
			}
		})
	}
}

// personDenyLine is how the fake TUI logs the line warden types after a
// person's deny.
const personDenyLine = "LINE warden: a person denied the action in the dialog above"

// countPrefix is how many lines begin with prefix.
func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// A dialog announced by the CLI's hook alone, which warden cannot read off
// the screen, is never answered: warden types nothing without a dialog on
// the screen it knows.
func TestAnswerNeedsADialogOnTheScreen(t *testing.T) {
	defer proctest.AssertNone(t)
	useWardenBin(t)
	log := filepath.Join(t.TempDir(), "dialog.log")
	cfg := writeTeam(t, dialogTimers("wait"), fakeAgent{name: "w", mode: "tui-dialog:" + log + ":hook", profile: "claude"})
	team, _, wait := startTeamCfg(t, cfg)
	waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
	// What came before agent_waiting is not the answer's: on a loaded
	// machine a checkpoint request can be typed while the hook that
	// announces the dialog (which the screen does not show) is on its way.
	before := len(dialogLog(t, log))
	_, err := control.NewClient(cfg.StateDir).Answer("w", control.AnswerRequest{Choice: profile.AnswerAllowOnce, Via: "cli"})
	if err == nil || !strings.Contains(err.Error(), "reads no dialog on its screen") {
		t.Errorf("answer without a dialog on the screen: %v", err)
	}
	time.Sleep(500 * time.Millisecond) // what an answer types arrives by then
	if lines := dialogLog(t, log)[before:]; hasPrefix(lines, "TYPED") >= 0 || hasPrefix(lines, "APPROVED") >= 0 {
		t.Errorf("something was typed: %v", lines)
	}
	team.Stop(true)
	wait()
	if countEvents(eventsOf(t, cfg), event.DialogAnswered, "") != 0 {
		t.Error("dialog_answered without an answer")
	}
}

// A CLI built on Ink draws its dialog before it listens for keys (its
// input hook attaches after the render), and keys typed in between are
// lost: a whole run's Claude Code took no notice of an allow-once typed
// 0.4 s after warden reported the dialog. A person's answer that comes at
// once is typed only once the dialog has been reported a second; the fake
// TUI here loses keys for 0.8 s after drawing it.
func TestAnswerToADialogJustDrawnWaitsForItToListen(t *testing.T) {
	defer proctest.AssertNone(t)
	log := filepath.Join(t.TempDir(), "dialog.log")
	cfg := writeTeam(t, dialogTimers("wait"), fakeAgent{name: "w", mode: "tui-dialog:" + log + ":deaf", profile: "claude"})
	team, _, wait := startTeamCfg(t, cfg)
	defer wait()
	defer team.Stop(true)
	waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
	id, _ := firstEvent(eventsOf(t, cfg), event.AgentWaiting)["dialog_id"].(string)
	if _, err := control.NewClient(cfg.StateDir).Answer("w", control.AnswerRequest{Choice: profile.AnswerAllowOnce, DialogID: id, Via: "cli"}); err != nil {
		t.Fatalf("answer: %v (the fake TUI saw %v)", err, dialogLog(t, log))
	}
	if lines := dialogLog(t, log); hasPrefix(lines, "APPROVED") < 0 || hasPrefix(lines, "DEAF") >= 0 {
		t.Errorf("the fake TUI saw: %v", lines)
	}
}
