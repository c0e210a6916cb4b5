//go:build !e2e

package agent

import (
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// After a person declines an agent's dialog (dialog_answered by a person,
// choice deny — the page's Deny, warden answer … deny, Codex's app-server
// decline) its status says "declined" for that dialog, with its question
// and how it was answered: warden ps, the page and state.json read it
// there, whatever the CLI's transcript says of the command. warden's own
// answer to a limit dialog is no person's and changes nothing; a later
// allow-once replaces it.
func TestTheLastDialogSaysDeclined(t *testing.T) {
	now := time.Date(2026, 12, 7, 3, 10, 0, 0, time.UTC)
	a := &Agent{cfg: config.Agent{Name: "asker"}, d: &Deps{Clock: clock.NewFake(now)}}
	if a.Status().LastDialog != nil {
		t.Fatal("a last dialog before any answer")
	}
	a.answered(event.AnsweredByPerson{By: "person", Via: "page", Choice: "deny", Question: "Bash command: curl x — Do you want to proceed?",
		DialogID: "3697f863ab", Through: "app-server"}.KV())
	a.answered(event.AnsweredByWarden{By: "warden", Choice: "keep", Kind: "limit"}.KV())
	got := a.Status().LastDialog
	want := state.DialogOutcome{Outcome: "declined", Question: "Bash command: curl x — Do you want to proceed?", DialogID: "3697f863ab", Via: "page", At: now}
	if got == nil || *got != want {
		t.Fatalf("last dialog %+v, want %+v", got, want)
	}
	a.answered(event.AnsweredByPerson{By: "person", Via: "cli", Choice: "allow-once", DialogID: "next"}.KV())
	if got := a.Status().LastDialog; got == nil || got.Outcome != "allowed once" || got.Via != "cli" {
		t.Errorf("after an allow-once: %+v", got)
	}
}
