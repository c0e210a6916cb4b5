//go:build !e2e

package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/hostiletext"
	"github.com/wardenhq/warden/protocol"
)

// Usage limits with their windows: an agent's pause until its reset, and
// an account parked with its agents until account_resumed.
func TestLimitsWithTheirWindows(t *testing.T) {
	r := newCrafted(t, "finished", false, 9000).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(100, "usage_limit_wait", "a1", "T1", "until", at(3700).Format("2006-01-02T15:04:05Z07:00"),
			"reset", "23:00", "text", "You've hit your limit · resets 11pm", "since", at(98).Format(time.RFC3339Nano)).
		event(200, "account_parked", "", "", "account", "work", "agents", []string{"a1", "a2"},
			"resets_at", at(3600).Format("2006-01-02T15:04:05Z07:00"), "source", "status_line",
			"since", at(195).Format(time.RFC3339Nano)).
		event(3660, "account_resumed", "", "", "account", "work").
		build(9000)
	if len(r.Limits) != 2 || r.Summary.Limits != 2 {
		t.Fatalf("limits: %+v", r.Limits)
	}
	l, p := r.Limits[0], r.Limits[1]
	if l.Kind != "usage_limit_wait" || l.Agent != "a1" || !l.Until.Equal(at(3700)) || l.Reset != "23:00" || l.Text == "" ||
		!l.At.Equal(at(98)) {
		t.Errorf("the pause: %+v", l)
	}
	if p.Kind != "account_parked" || p.Account != "work" || len(p.Agents) != 2 || !p.Resumed.Equal(at(3660)) ||
		p.Source != "status_line" || p.Reset != "2026-03-01T23:00:00Z" || !p.At.Equal(at(195)) {
		t.Errorf("the parked account: %+v", p)
	}
	if r.Agents[0].Limits != 2 || r.Agents[1].Limits != 1 {
		t.Errorf("agents: %+v", r.Agents)
	}
	text := Text(r)
	for _, want := range []string{"## Usage limits: 2", "a1, paused until 23:01:40, reset 23:00", "account work (a1, a2), reset",
		"resumed 23:01:00"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// The tokens and cost come from the run's records once they carry a
// usage field: each session once, at its largest figure; records of
// another run and records without usage count nothing. Until then the
// section says they are not recorded.
func TestUsageFromRecordsThatCarryIt(t *testing.T) {
	c := newCrafted(t, "finished", false, 500).event(0, "run_started", "", "", "run_id", "R1", "how", "new")
	c.record("T1", "c0", "R1", "dispatch", 1, nil)
	if r := c.build(600); r.Usage.Recorded || r.Usage.Note != NotRecorded || !strings.Contains(Text(r), NotRecorded) {
		t.Fatalf("no usage in the records: %+v", r.Usage)
	}
	use := func(session string, in, out int64, cost any) map[string]any {
		u := map[string]any{"tokens": map[string]any{"input": in, "cached_input": in / 2, "output": out}}
		if cost != nil {
			u["cost_usd"] = cost
		}
		return map[string]any{"session_id": session, "usage": u}
	}
	c.record("T1", "c1", "R1", "request", 10, use("s1", 1000, 100, 0.5))
	c.record("T1", "c2", "R1", "request", 20, use("s1", 3000, 300, 1.5)) // s1 so far: counts instead of c1
	c.record("T2", "c3", "R1", "request", 30, use("s2", 20000, 2000, nil))
	c.record("T2", "c4", "R0", "request", 30, use("s9", 99999, 9999, 99.0)) // another run
	r := c.build(600)
	u := r.Usage
	if !u.Recorded || u.Sessions != 2 || u.Total == nil || u.Total.Tokens.Input != 23000 || u.Total.Tokens.Output != 2300 ||
		u.Total.Tokens.CachedInput != 11500 || u.Total.CostUSD != 1.5 || !u.Total.Priced {
		t.Fatalf("usage: %+v total %+v", u, u.Total)
	}
	if t1, t2 := r.Tasks[0].Usage, r.Tasks[1].Usage; t1 == nil || t1.Tokens.Input != 3000 || t2 == nil || t2.Priced || t2.Tokens.Output != 2000 {
		t.Errorf("per task: %+v %+v", t1, t2)
	}
	if a := r.Agents[0].Usage; a == nil || a.Tokens.Input != 23000 || r.Agents[1].Usage != nil {
		t.Errorf("per agent: %+v %+v", a, r.Agents[1].Usage)
	}
	if r.Summary.CheckpointsKept != 3 || r.Tasks[0].CheckpointsKept != 2 {
		t.Errorf("records kept: %+v (the dispatch record and R0's are not this run's answers)", r.Summary)
	}
	text := unwrapped(Text(r))
	for _, want := range []string{"In all, from 2 sessions: 23.0k tokens in (11.5k cached), 2300 out, $1.50.",
		"- T1 complete \"first\": worked 50m of 1h estimated; attempt 2; 0 checkpoints; 3000 tokens in (1500 cached), 300 out, $1.50"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// The report team_done carries fits EventMax whatever the night held: its
// lists are cut (the tasks not complete kept first), its summary whole.
func TestBoundedFitsTheEvent(t *testing.T) {
	c := newCrafted(t, "finished", false, 90000).event(0, "run_started", "", "", "run_id", "R1", "how", "new")
	long := strings.Repeat("a dialog that goes on and on ", 20)
	for i := range 400 {
		c.event(10*i+1, "agent_waiting", "a1", "T2", "kind", "permission", "text", fmt.Sprint(i, long))
		c.event(10*i+5, "dialog_denied", "a1", "T2")
		c.event(10*i+6, "agent_exited", "a2", "T1", "code", 1)
		c.event(10*i+7, "agent_restarted", "a2", "T1", "attempt", i+2)
	}
	r := c.build(90000)
	if size(r) <= EventMax || r.Truncated {
		t.Fatalf("the whole report takes %d bytes: the test needs more than %d", size(r), EventMax)
	}
	b := r.Bounded(EventMax)
	if size(b) > EventMax || !b.Truncated || b.Summary != r.Summary || len(b.Waits) == 0 || len(b.Waits) >= 400 {
		t.Errorf("bounded: %d bytes, truncated %v, %d waits, summary %+v", size(b), b.Truncated, len(b.Waits), b.Summary)
	}
	if len(b.Tasks) == 0 || b.Tasks[0].ID != "T2" || len(r.Waits) != 400 || r.Truncated {
		t.Errorf("tasks %+v (the failed first); the report itself is whole: %d waits", b.Tasks, len(r.Waits))
	}
	if !strings.Contains(Text(b), "lists cut to fit the team_done event") {
		t.Errorf("the cut report does not say so:\n%s", Text(b))
	}
	var back Report
	if j, _ := json.Marshal(b); json.Unmarshal(j, &back) != nil || back.Summary.Restarts != 400 {
		t.Errorf("the bounded JSON does not read back")
	}
}

// What agents and files wrote reads in report.md as written: plain (no
// control or invisible character), Markdown's markup escaped, and every
// line, in both forms, at most Width columns.
func TestMarkdownEscapesWhatAgentsWrote(t *testing.T) {
	r := newCrafted(t, "finished", false, 500).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "agent_waiting", "a1", "T1", "kind", "permission", "text", hostiletext.Text+" **bold** [link](http://x) "+
			strings.Repeat("wide字", 40)).
		event(20, "agent_failed", "a1", "T1", "reason", hostiletext.Text, "last_lines", []string{hostiletext.Text}).
		build(600)
	md, text := Markdown(r), Text(r)
	for name, page := range map[string]string{"markdown": md, "text": text} {
		for _, c := range page {
			if c != '\n' && (protocol.IsControl(c) || protocol.IsInvisible(c)) {
				t.Errorf("%s holds %U", name, c)
				break
			}
		}
		for _, l := range strings.Split(page, "\n") {
			if w := widthOf(l); w > Width {
				t.Errorf("%s: a line of %d columns: %q", name, w, l)
			}
		}
	}
	for _, want := range []string{`\*\*bold\*\* \[link\](http://x)`, `\| forged \| row \| \# Forged`} {
		if !strings.Contains(unwrapped(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if text := unwrapped(text); !strings.Contains(text, "**bold** [link](http://x)") || !strings.Contains(text, "| forged | row | # Forged") {
		t.Errorf("the terminal text changes what the agent wrote:\n%s", text)
	}
}

// A task without a title is listed by its id alone, never with empty
// quotes (issue 31).
func TestAnUntitledTaskHasNoEmptyQuotes(t *testing.T) {
	r := &Report{Tasks: []Task{{ID: "T3", State: "complete", Label: "complete", Attempt: 1},
		{ID: "T4", Title: "fourth", State: "pending", Label: "pending", Attempt: 1}}}
	r.Summary.Tasks, r.Summary.Done, r.Summary.Open = 2, 1, 1
	text := unwrapped(Text(r))
	for _, want := range []string{"- T3 complete: worked", "- T4 pending \"fourth\": worked"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `""`) {
		t.Errorf("empty quotes:\n%s", text)
	}
}
