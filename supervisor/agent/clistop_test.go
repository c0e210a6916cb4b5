//go:build !e2e

package agent

import (
	"testing"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/session"
)

// A Codex turn that stopped on a typed reason (its app-server's
// sessionBudgetExceeded, tooManyDenials, …) is named, in Codex's word,
// beside the reason agent_failed and agent_restarted give; without one the
// reason is warden's alone.
func TestEndNamesTheCLIsStop(t *testing.T) {
	end := ended{cliStop: "sessionBudgetExceeded: This session's budget is spent."}
	got := end.withStop(restartReason(session.Exited, runner.Exit{Code: 1}, end))
	if want := "exited with code 1 (the CLI's last turn stopped: sessionBudgetExceeded: This session's budget is spent.)"; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	if got := (ended{}).withStop("stalled"); got != "stalled" {
		t.Errorf("without a stop: %q, want warden's reason alone", got)
	}
	if got := end.withStop(""); got != "" {
		t.Errorf("no reason: %q, want none", got)
	}
}
