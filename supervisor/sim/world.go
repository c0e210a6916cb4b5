// Package sim runs the team core — the supervisor with its agents,
// sessions, queue, verify, restarts, team checkpoints, handoffs and
// rehydration — in one process on a simulated clock (a testing/synctest
// bubble), with in-process agents behind the one seam a session starts its
// agent through (session.Starter) and in-process verify commands. A seeded
// generator draws random teams and random nights (Generate); World runs
// one and checks the core's invariants after every step (check.go). A
// failing seed prints a short trace and the command that replays it.
package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
)

// World is one simulated night: the team, its in-process agents, what
// they printed and what warden recorded, the events read back, and the
// invariants' verdicts.
type World struct {
	seed int64
	spec Spec
	root string
	cfg  *config.Team
	// statusMD and handoffMD are the last STATUS.md and handoff.md the
	// checks read.
	statusMD, handoffMD string
	log                 hclog.Logger
	team                *supervisor.Team // the warden running now, nil between two
	out                 lockedBuffer     // warden's stdout, every warden's
	// lives counts the wardens begun on the state dir, crashes the ones
	// killed with kill -9.
	lives, crashes int
	t0             time.Time

	mu       sync.Mutex
	sessions map[string]int // agent → sessions started
	procs    []*proc
	printed  map[string]answerPrinted // by mark
	recorded map[string]int           // mark → times recorded
	verifies []verifyRun
	flaky    map[string]bool // task → its flaky verify failed once
	starts   []startSeen
	// reviewHeard: the lines of review rounds typed to each agent (the
	// review request, the findings typed back), "agent: line".
	reviewHeard []string

	events   []Event
	evOffset int64

	simNow    atomic.Int64
	trace     []string
	failures  []string
	done      chan struct{}
	result    supervisor.Result
	finished  atomic.Bool
	checkedTo int // events the checks have seen
	inv       invariants
	snap      *stateFile // state.json as last read
	snapKey   string     // … and the file it was read from
	snapNew   bool       // read since STATUS.md was last looked at
	runBegan  time.Time  // when the run (not the warden) began
}

type answerPrinted struct {
	proc             *proc
	agent, task, why string
	valid            bool
	at               time.Time
}

type verifyRun struct {
	task    string
	passed  bool
	stopped bool // the team's stop ended it
	at      time.Time
}

type startSeen struct {
	agent string
	at    time.Time
	after int // events in the file when it started
}

// Event is one line of events.jsonl.
type Event map[string]any

func (e Event) Name() string  { s, _ := e["event"].(string); return s }
func (e Event) Agent() string { s, _ := e["agent"].(string); return s }
func (e Event) Task() string  { s, _ := e["task"].(string); return s }
func (e Event) Str(k string) string {
	switch v := e[k].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}
func (e Event) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.Str("ts"))
	return t
}

var traceFlag = flag.Bool("sim.trace", false, "print the whole trace and warden's output of a night that passed")

// Check runs seed's night in a bubble of its own and fails t with a trace
// and the replay command when an invariant breaks.
func Check(t *testing.T, seed int64, r *Reach) { CheckSpec(t, Generate(seed)).reached(r) }

// CheckSpec runs one night as spec says (a test's own, or a seed's) and
// returns its world, ended, for a test to look at further.
func CheckSpec(t *testing.T, spec Spec) *World {
	seed := spec.Seed
	var w *World
	var seen atomic.Pointer[World] // the watchdog's view, from outside the bubble
	stop := watchdog(t, seed, seen.Load)
	defer stop()
	synctest.Test(t, func(t *testing.T) {
		w = newWorld(t, spec)
		seen.Store(w)
		w.run(t)
	})
	switch {
	case len(w.failures) > 0:
		t.Errorf("%s", w.report())
	case *traceFlag:
		w.mu.Lock()
		t.Logf("seed %d held every invariant\n%s%s", seed, w.traceTail(1<<20), w.out.String())
		w.mu.Unlock()
	}
	return w
}

// ReplayCommand is the command that runs one seed again.
func ReplayCommand(seed int64) string {
	return fmt.Sprintf("go test ./supervisor/sim -run 'TestSimulation$' -sim.seed=%d -v", seed)
}

func newWorld(t *testing.T, spec Spec) *World {
	w := &World{seed: spec.Seed, spec: spec, root: simDir(t), sessions: map[string]int{},
		printed: map[string]answerPrinted{}, recorded: map[string]int{}, flaky: map[string]bool{}, done: make(chan struct{})}
	if spec.Worktree {
		w.gitRepo(t)
	}
	path := filepath.Join(w.root, "team.toml")
	if err := os.WriteFile(path, []byte(spec.TeamFile()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("seed %d: its team file does not load: %v\n%s", spec.Seed, err, spec.TeamFile())
	}
	w.cfg = cfg
	w.log = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	if os.Getenv("SIM_LOG") != "" {
		w.log = hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Debug})
	}
	return w
}

// simDir is a fresh directory for one night, in memory where the machine
// has /dev/shm (each record is written with an fsync).
func simDir(t *testing.T) string {
	base := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	dir, err := os.MkdirTemp(base, "warden-sim-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// gitRepo makes the project a git repository with one commit on main.
func (w *World) gitRepo(t *testing.T) {
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=sim@example.com", "-c", "user.name=sim", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = w.root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

// start is the session seam: an in-process agent in place of a program
// under a pty.
func (w *World) start(_ hclog.Logger, cfg runner.Config) (session.Process, error) {
	w.readEvents()
	w.mu.Lock()
	w.sessions[cfg.Name]++
	n := w.sessions[cfg.Name]
	w.starts = append(w.starts, startSeen{agent: cfg.Name, at: time.Now(), after: len(w.events)})
	who := w.persona(cfg.Name)
	p := newProc(cfg.Name, cfg.Output)
	w.procs = append(w.procs, p)
	w.mu.Unlock()
	w.note("%s starts session %d", cfg.Name, n)
	m := newMind(w, p, cfg.Name, n, who)
	m.dir = cfg.Dir
	go m.run()
	return p, nil
}

func (w *World) persona(agent string) Persona {
	for _, a := range w.spec.Agents {
		if a.Name == agent {
			return a.Persona
		}
	}
	return Persona{}
}

// verify is the verify seam: "sim-verify pass|fail|flaky|hang TASK".
func (w *World) verify(ctx context.Context, argv []string, _ string) queue.VerifyResult {
	ctx, cancel := context.WithTimeout(ctx, queue.VerifyTimeout)
	defer cancel()
	kind, task := argv[1], argv[2]
	time.Sleep(200 * time.Millisecond) // a verify takes a moment
	res := queue.VerifyResult{Summary: "exit code 1", Output: "sim: the tests fail"}
	switch kind {
	case "pass":
		res = queue.VerifyResult{Passed: true, Summary: "passed"}
	case "flaky":
		w.mu.Lock()
		if w.flaky[task] {
			res = queue.VerifyResult{Passed: true, Summary: "passed"}
		}
		w.flaky[task] = true
		w.mu.Unlock()
	case "hang":
		<-ctx.Done()
		res = queue.VerifyResult{Summary: "stopped: " + ctx.Err().Error()}
	}
	if ctx.Err() != nil && kind != "hang" {
		res = queue.VerifyResult{Summary: "stopped: " + ctx.Err().Error()}
	}
	w.mu.Lock()
	w.verifies = append(w.verifies, verifyRun{task: task, passed: res.Passed, stopped: ctx.Err() != nil, at: time.Now()})
	w.mu.Unlock()
	return res
}

// limit is the agent's CLI saying, through its status line hook, that its
// account's five-hour window is used up until reset.
//
// The limit is the account's: every other agent of the account that runs
// now meets it too, each at its next turn (within a few seconds), and its
// status line says so — warden parks the account on two agents' word (one
// agent's own word parks it alone).
func (w *World) limit(p *proc, agent string, reset time.Time) {
	payload := fmt.Sprintf(`{"rate_limits":{"five_hour":{"used_percentage":100,"resets_at":%d}}}`, reset.Unix())
	w.note("%s's status line: the account's limit, until %.0fs", agent, reset.Sub(w.t0).Seconds())
	tell := func(p *proc, agent string) {
		if team := w.current(); team != nil && p.Alive() {
			team.RouteHook(hookbus.Message{Agent: agent, Kind: profile.KindClaudeStatus, Payload: []byte(payload), At: time.Now(), Pid: p.pid})
		}
	}
	tell(p, agent)
	if !w.spec.Account {
		return
	}
	w.mu.Lock()
	latest := map[string]*proc{}
	for _, o := range w.procs {
		latest[o.name] = o
	}
	w.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(latest)) { // one order, one replay
		o := latest[name]
		if name == agent || !o.Alive() {
			continue
		}
		delay := time.Duration(reset.UnixNano()%3000+int64(len(name))*500) * time.Millisecond
		time.AfterFunc(delay, func() { tell(o, name) })
	}
}

// spend is the agent's CLI saying, through its status line hook, what its
// session has cost so far.
func (w *World) spend(p *proc, agent string, dollars float64) {
	payload := fmt.Sprintf(`{"cost":{"total_cost_usd":%.2f}}`, dollars)
	if team := w.current(); team != nil {
		team.RouteHook(hookbus.Message{Agent: agent, Kind: profile.KindClaudeStatus, Payload: []byte(payload), At: time.Now(), Pid: p.pid})
	}
}

// setTeam sets the warden running now (the driver's; minds read it).
func (w *World) setTeam(t *supervisor.Team) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.team = t
}

// current is the warden running now, or nil.
func (w *World) current() *supervisor.Team {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.team
}

// printed notes an answer an agent printed.
func (w *World) answered(p *proc, agent, mark, task string, valid bool, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.printed[mark] = answerPrinted{proc: p, agent: agent, task: task, why: why, valid: valid, at: time.Now()}
}

// onRecord sees every record warden saved.
func (w *World) onRecord(cp *protocol.Checkpoint, _ time.Time) {
	_, mark, ok := strings.Cut(cp.Notes, "answer ")
	if !ok {
		return
	}
	f := strings.Fields(mark)
	if len(f) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recorded["answer "+f[0]]++
}

// note adds a line to the trace.
func (w *World) note(format string, a ...any) {
	line := fmt.Sprintf("%8.3fs  ", time.Since(w.t0).Seconds()) + fmt.Sprintf(format, a...)
	w.mu.Lock()
	w.trace = append(w.trace, line)
	w.mu.Unlock()
}

// readEvents reads what events.jsonl gained since the last read.
func (w *World) readEvents() {
	f, err := os.Open(w.cfg.StateDir + "/events.jsonl")
	if err != nil {
		return
	}
	defer f.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := f.Seek(w.evOffset, io.SeekStart); err != nil {
		return
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return // a line not yet whole is read next time
		}
		w.evOffset += int64(len(line))
		var e Event
		if json.Unmarshal(line, &e) == nil {
			w.events = append(w.events, e)
		}
	}
}

// eventsNow returns the events read so far.
func (w *World) eventsNow() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events)
}

// lockedBuffer is warden's stdout.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
