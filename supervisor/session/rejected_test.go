//go:build !e2e

package session

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
)

// saidReporter keeps what a session says: its stdout lines and its events.
type saidReporter struct {
	quietReporter
	mu     sync.Mutex
	lines  []string
	events []map[string]any
}

func (r *saidReporter) Printf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, strings.TrimSuffix(fmt.Sprintf(format, a...), "\n"))
}

func (r *saidReporter) Event(name string, kv ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := map[string]any{"event": name}
	for i := 0; i+1 < len(kv); i += 2 {
		e[fmt.Sprint(kv[i])] = kv[i+1]
	}
	r.events = append(r.events, e)
}

// printed is every stdout line so far, one a line.
func (r *saidReporter) printed() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// named is the events of that name so far.
func (r *saidReporter) named(name string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, e := range r.events {
		if e["event"] == name {
			out = append(out, e)
		}
	}
	return out
}

// bench is a session of a plain agent on task T1 without a process, on a
// fake clock: the test plays the agent, writing its output where the
// runner would (Session.Write), and plays the typist, taking what the
// session queued to type; the loop's steps (tick, work) are called as the
// loop calls them. What reads the output and what decides are the
// session's own.
type bench struct {
	t  *testing.T
	s  *Session
	fc *clock.Fake
	r  *saidReporter
}

// benchTimers: interval 1s, timeout 2s, stale 4s / 8s (the night).
var benchTimers = Timers{CheckpointInterval: time.Second, CheckpointTimeout: 2 * time.Second,
	StaleWarning: 4 * time.Second, StaleFailure: 8 * time.Second, ShutdownTimeout: time.Second}

func newBench(t *testing.T, cfg Config) *bench {
	t.Helper()
	fc := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	r := &saidReporter{}
	if cfg.Profile == "" {
		cfg.Profile = "plain"
	}
	cfg.Agent, cfg.Clock, cfg.Report, cfg.Team = "w", fc, r, newTestTeam()
	if cfg.Task == nil {
		cfg.Task = &config.Task{ID: "T1", Title: "the task"}
	}
	if cfg.Timers == (Timers{}) {
		cfg.Timers = benchTimers
	}
	s := New(hclog.NewNullLogger(), cfg)
	s.started = fc.Now()
	s.openReader(nil)
	t.Cleanup(s.settle.stop)
	s.mon = newMonitor(cfg.Timers, turnQuiet(s.prof), s.started)
	s.input.queue = make(chan typed, 16)
	return &bench{t: t, s: s, fc: fc, r: r}
}

// step runs what the loop runs on a wake: the events waiting, then the
// monitor's due actions. It reports whether the session stalled.
func (b *bench) step() (stalled bool) {
	b.s.work(b.s.take())
	_, stalled = b.s.tick()
	return stalled
}

// advance moves the clock by d, a step of the loop at every 100 ms.
func (b *bench) advance(d time.Duration) (stalled bool) {
	for end := b.fc.Now().Add(d); b.fc.Now().Before(end); {
		b.fc.Advance(min(100*time.Millisecond, end.Sub(b.fc.Now())))
		if b.step() {
			return true
		}
	}
	return false
}

// typed takes what the session queued to type, types it as the typist does
// (the reader and the output clock told first) and writes the tty's echo;
// "" when nothing was queued.
func (b *bench) typed() string {
	select {
	case t := <-b.s.input.queue:
		b.s.typing(t)
		b.s.Write([]byte(strings.ReplaceAll(t.text, "\n", "\r\n") + "\r\n"))
		return t.text
	default:
		return ""
	}
}

// says writes the agent's output.
func (b *bench) says(text string) {
	b.s.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
}

func badStatusBlock(task string) string {
	return "CHECKPOINT: " + task + "\nStatus: in_progress\nCompleted:\n- a\nRemaining:\n- b\n" +
		"Files Modified: none\nEstimated Progress: 50%\n\n"
}

// An agent that answers every checkpoint request at once with a block
// whose status is unknown (in_progress): its answer is rejected, and the
// user is told so on a line of its own, with the reason; the agent is told
// once per request what was wrong, with the valid statuses, and asked to
// answer again; its answer counts as an answer (no "did not answer"
// timeout) and as its own output (never "silent", though it came right
// after warden typed); and the stale and stuck warnings and the stall say
// that it gave no valid checkpoint, because its answers were rejected.
func TestRejectedAnswerIsAnAnswerAndIsSaid(t *testing.T) {
	b := newBench(t, Config{})
	var requests, corrections []string
	// Play the agent up to 12 s (the first request comes at 1.5 s, once the
	// output has been quiet for the plain profile's turnQuiet): every text
	// warden types holding a request gets the bad block at once.
	stalled := false
	for i := 0; i < 120 && !stalled; i++ {
		for text := b.typed(); text != ""; text = b.typed() {
			if !strings.HasPrefix(text, protocol.RequestPrefix) {
				continue
			}
			if strings.Contains(text, "not recorded") {
				corrections = append(corrections, text)
			} else {
				requests = append(requests, text)
			}
			b.says(badStatusBlock("T1"))
		}
		stalled = b.advance(100 * time.Millisecond)
	}
	out := b.r.printed()
	t.Logf("stdout:\n%s", out)
	if len(requests) == 0 {
		t.Fatal("no checkpoint request was typed")
	}
	if n := len(b.r.named(event.CheckpointRejected)); n == 0 {
		t.Fatal("no checkpoint_rejected event")
	}

	// (a) The user is told, with the reason, on one line.
	want := `WARNING: w's checkpoint answer on T1 was rejected: unknown status: "in_progress"`
	if !strings.Contains(out, want) {
		t.Errorf("no line says the answer was rejected; want one holding %q", want)
	}
	// … and it was an answer: never "did not answer".
	if strings.Contains(out, "did not answer") || len(b.r.named(event.CheckpointTimeout)) > 0 {
		t.Errorf("a rejected answer counted as no answer (checkpoint_timeout)")
	}
	// (b) The agent is told what was wrong and the valid statuses, once a
	// request: never more corrections than requests, and at least one.
	if len(corrections) == 0 {
		t.Fatalf("the agent was never told what to fix (typed: %q)", requests)
	}
	if len(corrections) > len(requests) {
		t.Errorf("%d corrections for %d requests: one per request at most", len(corrections), len(requests))
	}
	c := corrections[0]
	for _, s := range append([]string{"in_progress", "Answer again"}, protocol.Statuses...) {
		if !strings.Contains(c, s) {
			t.Errorf("the correction %q does not say %q", c, s)
		}
	}
	// (c) It printed its answers: it is not silent.
	if strings.Contains(out, "silent") {
		t.Errorf("an agent that answered every request is said to be silent")
	}
	for _, e := range b.r.named(event.AgentStale) {
		if e["why"] == "silent" {
			t.Errorf("agent_stale %v: its answers did not count as its output", e)
		}
	}
	// (d) The stale and stuck lines say it gave no valid checkpoint, and why.
	for _, want := range []string{
		`WARNING: w has given no valid checkpoint for 4s on T1 (its answers were rejected: unknown status: "in_progress")`,
		`WARNING: w has given no valid checkpoint for 8s on T1 (its answers were rejected: unknown status: "in_progress")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if !stalled {
		t.Fatal("never stalled on rejected answers alone")
	}
	for _, c := range []struct {
		name, d string
	}{{event.AgentStale, "4s"}, {event.AgentStalled, "8s"}} {
		e := b.r.named(c.name)
		if len(e) != 1 || e[0]["why"] != "no_checkpoint" || e[0]["no_checkpoint_for"] != c.d ||
			e[0]["rejected"] != `unknown status: "in_progress"` || e[0]["silent_for"] != nil {
			t.Errorf("%s %v, want why no_checkpoint, no_checkpoint_for %s and the rejection", c.name, e, c.d)
		}
	}
}

// silentUntilStalled plays a silent agent (it never prints) on the bench
// until the session stalls; it returns what the agent was typed.
func (b *bench) silentUntilStalled() []string {
	var typed []string
	for i := 0; i < 200; i++ {
		for text := b.typed(); text != ""; text = b.typed() {
			typed = append(typed, text)
		}
		if b.advance(100 * time.Millisecond) {
			return typed
		}
	}
	b.t.Fatal("never stalled")
	return nil
}

// The stuck warning says what follows a stall, by the agent's restart
// policy: a restart; or, when none will come (restart = never, its restart
// limit), that it is stopped and not restarted, and why — and the stuck
// request typed to the agent says the same.
func TestStuckWarningSaysWhatFollows(t *testing.T) {
	for _, c := range []struct {
		name       string
		after      func() (bool, string)
		line, told string
	}{
		{"restarted", nil,
			"WARNING: w shows no progress for 8s on T1: asking it once more before a restart",
			"Without an answer this session is restarted from your last checkpoint."},
		{"never", func() (bool, string) { return false, "restart = never" },
			"WARNING: w shows no progress for 8s on T1: asking it once more; without an answer within 2s it is stopped, not restarted (restart = never)",
			"Without an answer this session is stopped."},
	} {
		b := newBench(t, Config{AfterStall: c.after})
		typed := b.silentUntilStalled()
		out := b.r.printed()
		if !strings.Contains(out, c.line) {
			t.Errorf("%s: stdout lacks %q:\n%s", c.name, c.line, out)
		}
		if c.after != nil && strings.Contains(out, "before a restart") {
			t.Errorf("%s: a restart is promised that will not come:\n%s", c.name, out)
		}
		if last := typed[len(typed)-1]; !strings.Contains(last, c.told) {
			t.Errorf("%s: the stuck request %q does not say %q", c.name, last, c.told)
		}
		if st := b.r.named(event.AgentStalled); len(st) != 1 || st[0]["why"] != "silent" || st[0]["silent_for"] != "8s" {
			t.Errorf("%s: agent_stalled %v", c.name, st)
		}
	}
}
