package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

const (
	// step is how often the driver looks at the world between the ops.
	step = 500 * time.Millisecond
	// slack is the second of simulated time the liveness bounds allow
	// beyond the team's own timeouts.
	slack = time.Second
)

// run drives the night: warden begins (and, after a stop or a kill -9,
// begins again when an op says so), each op comes at its time, the world
// is looked at every step, a SIGTERM ends the night, and the invariants are
// checked after every step. It returns once the last warden ended (or was
// given up on) and every process it started is gone.
func (w *World) run(t *testing.T) {
	w.t0 = time.Now()
	if err := w.begin(supervisor.StartAuto, ""); err != nil {
		t.Fatalf("begin: %v", err)
	}
	ops := w.spec.Ops
	nightOver := false
	for {
		now := time.Since(w.t0)
		next := now + step
		if len(ops) > 0 && ops[0].At < next {
			next = max(ops[0].At, now)
		}
		var done <-chan struct{} // none between two wardens
		if w.team != nil {
			done = w.done
		}
		select {
		case <-done:
		case <-time.After(next - now):
		}
		synctest.Wait()
		w.readEvents()
		w.simNow.Store(int64(time.Since(w.t0)))
		ended := w.team == nil || isClosed(w.done)
		if w.team != nil {
			w.check(ended)
		}
		if w.inv.giveUp {
			break
		}
		if ended && w.team != nil {
			w.endLife()
		}
		now = time.Since(w.t0)
		for len(ops) > 0 && ops[0].At <= now {
			w.apply(ops[0])
			ops = ops[1:]
		}
		if now >= w.spec.Night && !nightOver {
			nightOver = true
			if w.team != nil {
				w.apply(Op{At: now, Kind: OpSignal})
			}
		}
		if w.team == nil && (nightOver || !runsLeft(ops)) {
			break
		}
	}
	if w.team != nil { // given up on: kill everything, then wait
		w.team.Force()
		<-w.done
		w.team.Close()
		w.setTeam(nil)
	}
	w.readEvents()
	w.finalChecks()
	w.mu.Lock()
	procs := w.procs
	w.mu.Unlock()
	for _, p := range procs { // nothing a failed check left may outlive the bubble
		p.Kill()
	}
}

// newTeam is supervisor.New on the state dir. Every night of the test
// binary shares its process, and a child that another night's git forked
// holds a copy of every descriptor open then — the last warden's lock
// among them — until it execs: the lock is taken again after a moment of
// wall time. (The lock file names this process, alive, so state.Lock does
// not wait itself: its grace for a dead holder would run on the simulated
// clock, which does not move for a fork, and skip minutes of the night.)
func (w *World) newTeam() (*supervisor.Team, error) {
	for try := 0; ; try++ {
		team, err := supervisor.New(w.log, w.cfg, clock.Real{}, &w.out)
		if !errors.Is(err, state.ErrLocked) || try == 2000 {
			return team, err
		}
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(time.Millisecond)}, nil) // wall time: the bubble's clock stands still
	}
}

// runsLeft reports whether an op still to come begins warden again.
func runsLeft(ops []Op) bool {
	for _, o := range ops {
		if o.Kind == OpRun {
			return true
		}
	}
	return false
}

// begin starts a warden on the state dir, as `warden run` does (how: on
// its own, --fresh, or --resume --from the record from).
func (w *World) begin(how supervisor.Start, from string) error {
	team, err := w.newTeam()
	if err != nil {
		return err
	}
	team.Use(supervisor.Seams{Start: w.start, Verify: w.verify})
	team.OnRecord(w.onRecord)
	if from != "" {
		if err := team.ResumeFrom(from); err != nil {
			team.Close()
			return err
		}
	}
	if _, err := team.Begin(how); err != nil {
		team.Close()
		return err
	}
	done := make(chan struct{})
	w.done, w.lives = done, w.lives+1
	w.setTeam(team)
	w.inv.newLife()
	go func() {
		defer close(done)
		res := team.Run()
		w.mu.Lock()
		w.result = res
		w.mu.Unlock()
	}()
	return nil
}

// endLife closes a warden that ended by itself (its run done, or stopped)
// and checks what it left: its story, and no process of it.
func (w *World) endLife() {
	w.team.Close()
	w.setTeam(nil)
	w.readEvents()
	w.snap = nil
	if snap := w.snapshot(); snap != nil {
		w.checkStory(snap, true)
	}
	w.mu.Lock()
	procs := slices.Clone(w.procs)
	w.mu.Unlock()
	for _, p := range procs {
		if p.Alive() {
			w.fail("no process left behind: %s (pid %d) outlived warden's exit", p.name, p.pid)
			p.Kill()
		}
	}
}

// apply does op to the team, as a person would. With no warden running
// only OpRun means anything.
func (w *World) apply(op Op) {
	if w.team == nil && op.Kind != OpRun || w.team != nil && op.Kind == OpRun && !w.secondWarden() {
		return
	}
	w.note("op: %s", op)
	if op.Kind == OpRun {
		w.runAgain(op)
		return
	}
	c := w.team.Control()
	switch op.Kind {
	case OpKill9:
		w.crash(op)
	case OpCheckpoint:
		w.inv.asked(w, time.Now())
		path := w.cfg.SignalFile
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			w.fail("the signal file cannot be written: %v", err)
		}
		w.team.SignalFileAppeared()
	case OpStop:
		w.inv.stopped(w, time.Now())
		c.Stop(false)
	case OpStopNow:
		w.inv.stopped(w, time.Now())
		c.Stop(true)
	case OpSignal:
		w.inv.stopped(w, time.Now())
		w.team.Stop(true)
	case OpSecond:
		w.inv.stopped(w, time.Now())
		w.team.Force()
	case OpResume:
		req := control.ResumeRequest{}
		if op.Agent != "" {
			req.MaxCost, _ = strconv.ParseFloat(op.Agent, 64)
		}
		if r, ok := c.(control.Resumer); ok {
			_, _ = r.Resume(req) // refused when nothing is parked for the budget: fine
		}
	case OpRestart:
		go func() { _, _ = c.Restart(w.restartCtx(), op.Agent) }()
	}
}

// fail records a broken invariant, with when.
func (w *World) fail(format string, a ...any) {
	msg := fmt.Sprintf("%8.3fs  ", time.Since(w.t0).Seconds()) + fmt.Sprintf(format, a...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.failures) < 10 {
		w.failures = append(w.failures, msg)
	}
}

// report is a failing night: what broke, the spec, the trace's end and the
// replay command.
func (w *World) report() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d broke the core's invariants:\n", w.seed)
	for _, f := range w.failures {
		b.WriteString("  ✗ " + f + "\n")
	}
	b.WriteString(w.spec.Describe())
	n := 60
	if *traceFlag {
		n = 1 << 20
	}
	b.WriteString(w.traceTail(n))
	fmt.Fprintf(&b, "replay: %s\n", ReplayCommand(w.seed))
	return b.String()
}

// traceTail is the last n lines of the trace merged with the events, in
// time order. w.mu is held.
func (w *World) traceTail(n int) string {
	lines := append([]string(nil), w.trace...)
	for _, e := range w.events {
		at := e.Time().Sub(w.t0).Seconds()
		line := fmt.Sprintf("%8.3fs  event %s", at, e.Name())
		if a := e.Agent(); a != "" {
			line += " " + a
		}
		if t := e.Task(); t != "" {
			line += " " + t
		}
		for _, k := range []string{"reason", "status", "attempt", "code", "result"} {
			if v := e.Str(k); v != "" {
				line += fmt.Sprintf(" %s=%q", k, v)
			}
		}
		lines = append(lines, line)
	}
	sortByTime(lines)
	lines = collapse(lines)
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("  … %d lines before", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return "trace (simulated seconds):\n  " + strings.Join(lines, "\n  ") + "\n"
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// watchdog fails the test from outside the bubble when simulated time has
// not moved for stuckAfter of wall time: something in the core spins (a
// livelock never blocks, so the bubble's clock never advances) or waits on
// what is not simulated. It prints the trace and the replay command, then
// panics: the bubble cannot be ended from outside.
func watchdog(t *testing.T, seed int64, world func() *World) (stop func()) {
	const (
		stuckAfter = 30 * time.Second // frozen this long: stuck
		stormAfter = 3 * time.Second  // frozen this long with stormLines more events: a storm
		stormLines = 1000
	)
	done := make(chan struct{})
	var once sync.Once
	go func() {
		last, since := int64(-1), time.Now()
		var lines int
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			w := world()
			if w == nil || w.cfg == nil {
				continue
			}
			if now := w.simNow.Load(); now != last {
				last, since, lines = now, time.Now(), countLines(filepath.Join(w.cfg.StateDir, "events.jsonl"))
				continue
			}
			grew := countLines(filepath.Join(w.cfg.StateDir, "events.jsonl")) - lines
			if time.Since(since) < stuckAfter && (grew < stormLines || time.Since(since) < stormAfter) {
				continue
			}
			w.readEventsTail(200)
			w.mu.Lock()
			msg := fmt.Sprintf("seed %d: simulated time stopped at %.3fs for %v of wall time; events.jsonl grew by %d lines meanwhile (%s)\n%s%s",
				seed, float64(last)/1e9, time.Since(since).Round(time.Second), grew, stuckWhy(grew), w.spec.Describe(), w.traceTail(60))
			w.mu.Unlock()
			msg += "replay: " + ReplayCommand(seed) + "\n"
			fmt.Fprint(os.Stderr, msg)
			panic(msg)
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

func stuckWhy(grew int) string {
	if grew > 100 {
		return "a loop that never blocks: an event storm"
	}
	return "something waits on what is not simulated, or spins without events"
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}
