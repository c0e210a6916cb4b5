//go:build !e2e

package report

import (
	"strings"
	"testing"
)

// A person's answer is written once its dialog has left the screen, after
// the agent_resumed that saw it go (as warden writes them): the report says
// the dialog was denied by the person — it said "then it went on" —, or
// answered allow-once, and never "went on" for either.
func TestAPersonsDenyIsSaidDenied(t *testing.T) {
	r := newCrafted(t, "", true, 100).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "agent_waiting", "a1", "T1", "kind", "permission", "text", "Run rm?").
		event(40, "agent_resumed", "a1", "T1", "via", "answer").
		event(41, "dialog_answered", "a1", "T1", "by", "person", "via", "cli", "choice", "deny").
		event(50, "agent_waiting", "a2", "T2", "kind", "permission", "text", "Push?").
		event(60, "agent_resumed", "a2", "T2", "via", "answer").
		event(61, "dialog_answered", "a2", "T2", "by", "person", "via", "page", "choice", "allow-once").
		event(70, "agent_waiting", "a2", "T2", "kind", "permission", "text", "Fetch?").
		event(80, "agent_resumed", "a2", "T2").
		build(1000)
	if len(r.Waits) != 3 || r.Waits[0].Ended != "answered" || r.Waits[0].Choice != "deny" || r.Waits[0].WaitedSeconds != 30 ||
		r.Waits[1].Ended != "answered" || r.Waits[1].Choice != "allow-once" || r.Waits[2].Ended != "resumed" {
		t.Fatalf("waits: %+v", r.Waits)
	}
	text := Text(r)
	for _, want := range []string{`waited 30s on a permission dialog, denied by person via cli: "Run rm?"`,
		`on a permission dialog, answered by person via page: allow-once:`,
		`on a permission dialog, then it went on: "Fetch?"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}
