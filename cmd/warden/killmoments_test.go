//go:build e2e

package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

var killsSeed = flag.Uint64("kills.seed", 0, "TestRandomKillMoments's seed (0: a new one, printed)")

// killKinds are the moments TestRandomKillMoments kills warden at: "start"
// (a random time from its start: the start-up of the first run, the
// take-back of every later one), "request" (a checkpoint request in
// flight), "writing" (an answer being written), "answered" (right after
// an agent wrote an answer), "recorded" (right after warden recorded
// one), "teamcheckpoint" (a random time after `warden checkpoint`) and
// "random" (a random time once every agent is at work).
var killKinds = []string{"start", "request", "writing", "answered", "recorded", "teamcheckpoint", "random"}

// killAgents are the team's agents: two plain workers, two TUIs.
var killAgents = []string{"w1", "w2", "t1", "t2"}

// TestRandomKillMoments is issue 36's figure: kill -9 of warden at seeded
// random moments over a held team (holder = true) of plain and TUI fake
// agents, each moment followed by a carry-on `warden run`, then a last run
// stopped with `warden stop`. Every answer an agent wrote (its answer log,
// outside the state dir) is recorded exactly once (the checkpoint
// history), restarts are counted, and nothing is left: no process, no
// zombie, the holder included.
//
// WARDEN_KILL_MOMENTS (default 8, what CI runs) sets how many moments;
// -kills.seed replays a seed (the kinds and waits; the timing is the
// machine's). docs/performance.md gives the figure of 100.
func TestRandomKillMoments(t *testing.T) {
	defer proctest.AssertNone(t)
	n := envInt(t, "WARDEN_KILL_MOMENTS", 8)
	seed := *killsSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay: -kills.seed %d), %d moments", seed, seed, n)
	d := newKillDriver(t, seed)
	t.Cleanup(func() {
		if d.cmd != nil && d.cmd.ProcessState == nil {
			d.cmd.Process.Kill()
			d.cmd.Wait()
		}
		if t.Failed() || d.missed > 0 {
			keep := filepath.Join(os.TempDir(), fmt.Sprintf("killmoments-%d", seed))
			os.RemoveAll(keep)
			exec.Command("cp", "-a", filepath.Dir(d.team), keep).Run() // sockets and all
			t.Logf("FAILED or NOT MET with -kills.seed %d; moments: %s; the state dir and answer log kept in %s", seed, d.kinds(), keep)
		}
	})
	began := time.Now()
	for i := range n {
		d.moment(i)
	}
	d.finish()
	f := d.check()
	t.Logf("seed %d, %d moments in %v (%s): %s; every agent at work at most %v after a warden's start",
		seed, n, time.Since(began).Round(time.Second), d.kinds(), f, d.slowest.Round(time.Millisecond))
}

// killDriver is one team and the wardens run and killed over it.
type killDriver struct {
	t               *testing.T
	seed            uint64
	rng             *rand.Rand
	team, state     string
	events          *eventTail
	truth           *truthTail
	moments         []killMoment
	cmd             *exec.Cmd     // the warden running now
	slowest         time.Duration // the longest from a warden's start to every agent at work
	agents, holders map[int]bool  // every agent pid and holder pid seen
	missed          int           // answers lost or doubled (notMet)
	final           time.Time     // when the final run began
}

// killMoment is one warden run and the moment it was killed at.
type killMoment struct {
	kind        string
	start, kill time.Time
	wait        time.Duration // the random part of the wait, when there is one
	from        int           // events before this run
	started     int           // agent_started events of this run at the kill
}

func newKillDriver(t *testing.T, seed uint64) *killDriver {
	dir := t.TempDir()
	d := &killDriver{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 36)),
		agents: map[int]bool{}, holders: map[int]bool{}}
	d.team = filepath.Join(dir, "team.toml")
	d.state = filepath.Join(dir, ".warden")
	log := filepath.Join(dir, "answers.log")
	d.events = &eventTail{tail: tail{path: filepath.Join(d.state, "events.jsonl")}}
	d.truth = &truthTail{tail: tail{path: log}, open: map[string]bool{}}
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	b.WriteString("name = \"kills\"\nholder = true\ncheckpoint_interval = \"150ms\"\ncheckpoint_timeout = \"3s\"\n" +
		"shutdown_timeout = \"2s\"\n[retention]\nkeep_last = 1048576\n")
	for i, a := range killAgents {
		mode, profile := "worker:steps=100000:brief=1:slow=200ms:drip=3ms", ""
		if a[0] == 't' {
			mode, profile = "tui-answer", "profile = \"claude\"\n"
		}
		argv := fakeagent.Command(mode)
		fmt.Fprintf(&b, "[[agent]]\nname = %q\n%scommand = [%q, %q]\nenv = { %s = %q, %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			a, profile, argv[0], argv[1], fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner, fakeagent.EnvAnswerLog, log)
		fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"Do task %d.\"\nagent = %q\n", i+1, i+1, i+1, a)
	}
	if err := os.WriteFile(d.team, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

// dur is a random duration in [0, max).
func (d *killDriver) dur(max time.Duration) time.Duration {
	return time.Duration(d.rng.Int64N(int64(max)))
}

// moment runs warden, waits for a moment of a random kind, kills it with
// -9, then waits a random time (answers in flight come while no warden
// reads).
func (d *killDriver) moment(i int) {
	m := killMoment{kind: killKinds[d.rng.IntN(len(killKinds))], from: d.events.len()}
	if m.kind == "start" {
		m.kind = "takeback"
		if i == 0 {
			m.kind = "startup"
		}
	}
	m.start = time.Now()
	cmd, out := runWarden(d.t, "run", d.team)
	d.cmd = cmd
	switch m.kind {
	case "startup", "takeback":
		m.wait = d.dur(600 * time.Millisecond)
		time.Sleep(m.wait)
	default:
		d.going(m, out)
		switch m.kind {
		case "request":
			d.until(m, out, "a checkpoint request in flight", func() bool { return d.inFlight(m.from) })
			m.wait = d.dur(200 * time.Millisecond)
		case "writing":
			d.until(m, out, "an answer being written", func() bool { return len(d.truth.open) > 0 })
		case "answered":
			n := d.truth.ends
			d.until(m, out, "an answer written", func() bool { return d.truth.ends > n })
		case "recorded":
			n := d.events.count(m.from, "checkpoint_received")
			d.until(m, out, "an answer recorded", func() bool { return d.events.count(m.from, "checkpoint_received") > n })
		case "teamcheckpoint":
			if msg, err := warden("checkpoint", d.team).CombinedOutput(); err != nil {
				d.fatalf(m, out, "warden checkpoint: %v\n%s", err, msg)
			}
			m.wait = d.dur(1500 * time.Millisecond)
		case "random":
			m.wait = d.dur(1500 * time.Millisecond)
		}
		time.Sleep(m.wait)
	}
	d.events.poll()
	m.started = d.events.count(m.from, "agent_started")
	cmd.Process.Signal(syscall.SIGKILL)
	m.kill = time.Now()
	if err := cmd.Wait(); exitCode(err) != -1 {
		d.fatalf(m, out, "warden ended on its own before the kill: %v", err)
	}
	d.moments = append(d.moments, m)
	d.notePids(m.from)
	time.Sleep(d.dur(400 * time.Millisecond))
}

// finish runs warden once more, lets every agent answer twice in it, and
// stops it with `warden stop`.
func (d *killDriver) finish() {
	m := killMoment{kind: "final", start: time.Now(), from: d.events.len()}
	d.final = m.start
	cmd, out := runWarden(d.t, "run", d.team)
	d.cmd = cmd
	d.going(m, out)
	d.until(m, out, "every agent answering", func() bool {
		for _, a := range killAgents {
			if d.events.countOf(m.from, "checkpoint_received", a) < 2 {
				return false
			}
		}
		return true
	})
	if msg, err := warden("stop", d.team).CombinedOutput(); err != nil {
		d.fatalf(m, out, "warden stop: %v\n%s", err, msg)
	}
	cmd.Wait()
	d.events.poll()
	d.notePids(m.from)
}

// going waits until this run has every agent started or taken back, and
// keeps the longest wait.
func (d *killDriver) going(m killMoment, out *lines) {
	d.until(m, out, "every agent at work", func() bool { return d.events.count(m.from, "agent_started") >= len(killAgents) })
	d.slowest = max(d.slowest, time.Since(m.start))
}

// until polls the event and answer logs until ok, for 2 minutes at most
// (a take-back on a loaded machine may take tens of seconds).
func (d *killDriver) until(m killMoment, out *lines, what string, ok func() bool) {
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		d.events.poll()
		d.truth.poll()
		if ok() {
			return
		}
	}
	d.fatalf(m, out, "no moment with %s within 2 minutes", what)
}

// inFlight reports whether an agent has a checkpoint request this run
// made that it has not answered yet.
func (d *killDriver) inFlight(from int) bool {
	last := map[string]string{}
	for _, e := range d.events.all[from:] {
		if e.Event == "checkpoint_requested" || e.Event == "checkpoint_received" {
			last[e.Agent] = e.Event
		}
	}
	for _, ev := range last {
		if ev == "checkpoint_requested" {
			return true
		}
	}
	return false
}

// notePids keeps the pids of the agents this run started or took back,
// and of their holder.
func (d *killDriver) notePids(from int) {
	for _, e := range d.events.all[from:] {
		if e.Event == "agent_started" && e.Pid > 0 {
			d.agents[e.Pid] = true
			if h := holderOf(e.Pid); h > 0 {
				d.holders[h] = true
			}
		}
	}
}

func (d *killDriver) fatalf(m killMoment, out *lines, format string, a ...any) {
	d.t.Helper()
	d.t.Fatalf("seed %d, moment %d (%s): %s\n%s", d.seed, len(d.moments), m.kind, fmt.Sprintf(format, a...), out.dump())
}

// kinds is how many moments of each kind ran, in killKinds' order.
func (d *killDriver) kinds() string {
	n := map[string]int{}
	for _, m := range d.moments {
		n[m.kind]++
	}
	var s []string
	for _, k := range append([]string{"startup", "takeback"}, killKinds[1:]...) {
		if n[k] > 0 {
			s = append(s, fmt.Sprintf("%s %d", k, n[k]))
		}
	}
	return strings.Join(s, ", ")
}
