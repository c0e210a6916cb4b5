//go:build e2e

package notify

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/supervisor/config"
)

// TestCommandGetsEventAndEnv: the command reads the event's line on stdin,
// byte for byte, and finds the five variables added to warden's own
// environment; only matching rules run.
func TestCommandGetsEventAndEnv(t *testing.T) {
	t.Setenv(EnvEvent, "inherited") // warden's own value never passes for the event's
	dir := t.TempDir()
	rules := []config.Notify{
		rule([]string{"agent_waiting", "team_done"}, helperCommand(t, "record", dir)),
	}
	h := newHarness(t, rules, clock.Real{}, defaultWorkers, defaultQueue)
	ev := event("agent_waiting", "worker-1", "T060")
	h.n.Notify(event("agent_started", "worker-1", "T061")) // no rule for it
	line := string(ev.JSON)
	h.n.Notify(ev)
	copy(ev.JSON, strings.Repeat("x", len(ev.JSON))) // the caller reuses its buffer
	r := h.next(t)
	if r.err != nil || !r.started {
		t.Fatalf("run: started %v, err %v; log:\n%s", r.started, r.err, h.log)
	}
	h.none(t)
	rec := readRecord(t, dir, "T060")
	if rec.Stdin != line {
		t.Errorf("stdin = %q, want %q", rec.Stdin, line)
	}
	want := map[string]string{
		EnvEvent: "agent_waiting", EnvTeam: "night", EnvAgent: "worker-1", EnvTask: "T060",
		EnvSuppressed: "0", fakeagent.EnvOwner: strconv.Itoa(pid()),
	}
	got := map[string]string{} // the notifier's variables (the caller's own WARDEN_* pass through)
	for k := range want {
		if v, ok := rec.Env[k]; ok {
			got[k] = v
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("env = %v, want %v", rec.Env, want)
	}
	if s := h.n.Stats(); s != (Stats{Started: 1}) {
		t.Errorf("stats = %+v, want one started", s)
	}
}

// TestAllEventsAndEmptyAgent: "*" matches any event; an event without agent
// or task gets empty variables, and a line without a trailing newline gets one.
func TestAllEventsAndEmptyAgent(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, []config.Notify{rule([]string{"*"}, helperCommand(t, "record", dir))}, clock.Real{}, 1, 4)
	h.n.Notify(Event{Name: "team_done", JSON: []byte(`{"event":"team_done","exit_code":0}`)})
	if r := h.next(t); r.err != nil {
		t.Fatalf("run: %v; log:\n%s", r.err, h.log)
	}
	rec := readRecord(t, dir, "")
	if rec.Stdin != `{"event":"team_done","exit_code":0}`+"\n" {
		t.Errorf("stdin = %q", rec.Stdin)
	}
	if rec.Env[EnvEvent] != "team_done" || rec.Env[EnvAgent] != "" || rec.Env[EnvTask] != "" {
		t.Errorf("env = %v", rec.Env)
	}
}

// TestRateLimit: three events of one (rule, event, agent) inside min_interval
// make one run; another agent has its own; after the interval the next run
// carries suppressed=2, in its environment and its JSON. The clock is fake.
func TestRateLimit(t *testing.T) {
	dir := t.TempDir()
	clk := clock.NewFake(t0)
	r := rule([]string{"agent_stalled"}, helperCommand(t, "record", dir))
	r.MinInterval = 10 * time.Minute
	h := newHarness(t, []config.Notify{r}, clk, defaultWorkers, defaultQueue)

	h.n.Notify(event("agent_stalled", "w1", "A1"))
	clk.Advance(time.Minute)
	h.n.Notify(event("agent_stalled", "w1", "A2"))
	clk.Advance(8 * time.Minute)
	h.n.Notify(event("agent_stalled", "w1", "A3"))
	h.n.Notify(event("agent_stalled", "w2", "B1")) // another agent: not limited by w1's
	got := map[string]int{}
	for range 2 {
		res := h.next(t)
		got[res.ev.Task] = res.suppressed
	}
	h.none(t)
	if !reflect.DeepEqual(got, map[string]int{"A1": 0, "B1": 0}) {
		t.Fatalf("runs = %v, want A1 and B1, nothing suppressed yet", got)
	}
	if s := h.n.Stats(); s.Suppressed != 2 || s.Started != 2 {
		t.Errorf("stats = %+v, want 2 started, 2 suppressed", s)
	}

	clk.Advance(time.Minute) // 10m after A1
	h.n.Notify(event("agent_stalled", "w1", "A4"))
	if res := h.next(t); res.ev.Task != "A4" || res.suppressed != 2 || res.err != nil {
		t.Fatalf("run %s: suppressed %d, err %v; want A4 carrying 2", res.ev.Task, res.suppressed, res.err)
	}
	rec := readRecord(t, dir, "A4")
	if rec.Env[EnvSuppressed] != "2" {
		t.Errorf("%s = %q, want 2", EnvSuppressed, rec.Env[EnvSuppressed])
	}
	wantJSON := `{"agent":"w1","event":"agent_stalled","task":"A4","ts":"2026-05-03T22:15:00Z","suppressed":2}` + "\n"
	if rec.Stdin != wantJSON {
		t.Errorf("stdin = %q, want %q", rec.Stdin, wantJSON)
	}
	h.n.Notify(event("agent_stalled", "w1", "A5")) // the interval starts again at A4
	h.none(t)
}

// TestZeroIntervalSendsEvery: min_interval "0s" limits nothing.
func TestZeroIntervalSendsEvery(t *testing.T) {
	dir := t.TempDir()
	r := rule([]string{"text_sent"}, helperCommand(t, "record", dir))
	r.MinInterval = 0
	h := newHarness(t, []config.Notify{r}, clock.NewFake(t0), defaultWorkers, defaultQueue)
	for i := range 3 {
		h.n.Notify(event("text_sent", "w1", "T"+strconv.Itoa(i)))
	}
	for range 3 {
		if res := h.next(t); res.err != nil || res.suppressed != 0 {
			t.Errorf("run %s: err %v, suppressed %d", res.ev.Task, res.err, res.suppressed)
		}
	}
	if s := h.n.Stats(); s.Started != 3 || s.Suppressed != 0 {
		t.Errorf("stats = %+v", s)
	}
}
