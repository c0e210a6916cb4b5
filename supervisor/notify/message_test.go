//go:build !e2e

package notify

import (
	"strings"
	"testing"
)

// What a phone shows of the night's end and of a restart: team_done's body
// says how many tasks are complete and warden's exit code (it was empty),
// and agent_restarted says why the agent was restarted.
func TestTeamDoneAndRestartSayWhatHappened(t *testing.T) {
	n := &Notifier{team: "night"}
	for _, c := range []struct {
		ev          Event
		title, text string
	}{
		{Event{Name: "team_done", JSON: []byte(`{"event":"team_done","exit_code":0,"tasks_complete":3,"tasks_failed":0,"tasks":3,"report":{"run":{"ended":"finished"}}}`)},
			"the team is done · night", "3/3 tasks complete, exit 0"},
		{Event{Name: "team_done", JSON: []byte(`{"event":"team_done","exit_code":1,"tasks_complete":1,"tasks_failed":1,"tasks":3}`)},
			"the team is done · night", "1/3 tasks complete, 1 failed, exit 1"},
		{Event{Name: "team_done", JSON: []byte(`{"event":"team_done","exit_code":130,"tasks_complete":0,"tasks_failed":0,"tasks":1,"report":{"run":{"ended":"stopped"}}}`)},
			"the team is done · night", "0/1 task complete, stopped, exit 130"},
		{Event{Name: "agent_restarted", Agent: "w1", Task: "T1", JSON: []byte(`{"event":"agent_restarted","agent":"w1","task":"T1","attempt":2,"backoff":"1.1s","reason":"exited with code 3"}`)},
			"w1: agent restarted · night", "agent: w1 task: T1\nexited with code 3"},
		{Event{Name: "agent_restarted", Agent: "w1", Task: "T1", JSON: []byte(`{"event":"agent_restarted","agent":"w1","task":"T1","attempt":3,"backoff":"2s","reason":"stalled (no output for 30m0s)"}`)},
			"w1: agent restarted · night", "agent: w1 task: T1\nstalled (no output for 30m0s)"},
	} {
		m := n.message(job{ev: c.ev})
		if m.Title != c.title || m.Text != c.text {
			t.Errorf("%s: title %q text %q, want %q and %q", c.ev.JSON, m.Title, m.Text, c.title, c.text)
		}
		if b, _ := body("ntfy", m); !strings.Contains(string(b), c.text) {
			t.Errorf("the ntfy body %q lacks %q", b, c.text)
		}
	}
}
