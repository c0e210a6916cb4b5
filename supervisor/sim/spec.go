package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Spec is one simulated night, drawn from a seed: the team, how each of
// its agents behaves, and what people do to it when.
type Spec struct {
	Seed     int64
	Worktree bool
	Timers   Timers
	// Rehydrate: after a team checkpoint fresh sessions carry on (else warden exits).
	Rehydrate bool
	Agents    []AgentSpec
	Tasks     []TaskSpec
	Ops       []Op
	// Night is how long the night runs before a person stops it.
	Night time.Duration
	// Account: the agents share one (their usage limit parks them all).
	Account bool
	// MaxRunning is the team's max_running (0: none).
	MaxRunning int
	// MaxCost is the team's max_cost in dollars (0: none); Pause: on_budget
	// = "pause" (else checkpoint-exit).
	MaxCost float64
	Pause   bool
	// OnOverlap is the team's on_overlap ("": not written, the default).
	OnOverlap string
	// ReviewBy is the team's review_by ("": none) and MaxReviewRounds its
	// max_review_rounds (0: not written, the default).
	ReviewBy        string
	MaxReviewRounds int
	// LandBy is the team's land_by ("": no land within the run); with it
	// land = "branch", land_verify the sim's verify of kind LandVerify
	// ("pass", "fail", "flaky"), and land_attempts LandAttempts (0: the
	// default).
	LandBy       string
	LandVerify   string
	LandAttempts int
}

// Timers are the team file's timers.
type Timers struct {
	Interval, Timeout, Shutdown, StaleWarning, StaleFailure time.Duration
	// IdleAfter and IdleNudges: idle_after and idle_nudges, written when
	// IdleAfter is set (else the defaults: 20m, longer than any night).
	IdleAfter  time.Duration
	IdleNudges int
}

// AgentSpec is one [[agent]].
type AgentSpec struct {
	Name        string
	Restart     string // never, on-failure, always
	MaxRestarts int
	Persona     Persona
}

// TaskSpec is one [[task]].
type TaskSpec struct {
	ID          string
	Title       string
	BlockedBy   []string
	Agent       string // pinned to this agent, or ""
	Verify      string // "", pass, fail, flaky (fails once, then passes), hang
	MaxAttempts int
	NoReview    bool // review_by = "" (the team's review_by is not its reviewer)
}

// Reviewer is task's reviewer in the spec ("": none).
func (s Spec) Reviewer(task string) string {
	for _, t := range s.Tasks {
		if t.ID == task && !t.NoReview {
			return s.ReviewBy
		}
	}
	return ""
}

// OpKind is something a person (or a scheduler) does to a running team.
type OpKind string

const (
	OpCheckpoint OpKind = "checkpoint"    // the signal file appears (warden checkpoint)
	OpStop       OpKind = "stop"          // warden stop
	OpStopNow    OpKind = "stop --now"    // warden stop --now
	OpSignal     OpKind = "SIGTERM"       // a signal: a clean stop
	OpSecond     OpKind = "second signal" // another signal: kill now
	OpRestart    OpKind = "restart"       // warden restart AGENT
	OpKill9      OpKind = "kill -9"       // warden dies; systemd starts it again RestartSec later (Agent holds it)
	OpRun        OpKind = "warden run"    // warden begins again: Agent says how ("", --fresh, --from)
	OpResume     OpKind = "warden resume" // a person lets the budget-parked agents go on: the budget raised, or lifted ("")
)

// Op is one thing done to the team, At after it started.
type Op struct {
	At    time.Duration
	Kind  OpKind
	Agent string
}

func (o Op) String() string {
	if o.Agent != "" {
		return fmt.Sprintf("%v %s %s", o.At, o.Kind, o.Agent)
	}
	return fmt.Sprintf("%v %s", o.At, o.Kind)
}

// Generate draws a night from seed: 1–8 agents, 1–20 tasks with a random
// blocked_by graph (each task blocked only by earlier ones: no cycle),
// pinned and free tasks, worktree or shared, verify commands that pass,
// fail or hang, agents that answer late, complete, block, print garbage,
// hang, chatter, crash, exit or ignore SIGTERM, and a person who asks for
// team checkpoints, restarts, stops and signals.
func Generate(seed int64) Spec {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	s := Spec{Seed: seed, Worktree: r.IntN(4) == 0, Rehydrate: r.IntN(4) != 0,
		Night: time.Duration(60+r.IntN(61)) * time.Second, Account: r.IntN(3) == 0}
	sec := func(lo, hi int) time.Duration { return time.Duration(lo+r.IntN(hi-lo+1)) * time.Second }
	s.Timers.Interval = sec(2, 30)
	s.Timers.Timeout = sec(1, 10)
	s.Timers.Shutdown = sec(1, 10)
	s.Timers.StaleWarning = s.Timers.Interval + s.Timers.Timeout + sec(1, 20)
	s.Timers.StaleFailure = s.Timers.StaleWarning + sec(1, 30)
	chance := func(p float64) float64 {
		if r.Float64() < 0.5 {
			return 0
		}
		return p * r.Float64()
	}
	for i := range 1 + r.IntN(8) {
		p := Persona{
			AnswerMin:     time.Duration(r.Int64N(int64(s.Timers.Timeout))),
			CompleteAfter: 1 + r.IntN(5),
			Blocked:       chance(0.2),
			Garbage:       chance(0.3),
			Unasked:       chance(0.1),
			Hang:          chance(0.3),
			Crash:         chance(0.5),
			Exit:          chance(0.2),
			IgnoreTerm:    r.IntN(5) == 0,
			IgnoreEOF:     r.IntN(3) == 0,
			Leaves:        r.IntN(5) == 0,
			Lead:          r.IntN(8) == 0,
		}
		p.AnswerMax = p.AnswerMin + time.Duration(r.Int64N(int64(s.Timers.Timeout)))
		if r.IntN(7) == 0 {
			p.CompleteAfter = 0 // never done
		}
		if s.Account && r.IntN(3) == 0 {
			p.Limit = 0.3 * r.Float64()
		}
		if r.IntN(3) == 0 {
			p.Chatter = time.Duration(1+r.IntN(10)) * 300 * time.Millisecond
		}
		s.Agents = append(s.Agents, AgentSpec{Name: fmt.Sprintf("a%d", i+1),
			Restart: []string{"on-failure", "on-failure", "always", "never"}[r.IntN(4)], MaxRestarts: r.IntN(6), Persona: p})
	}
	if r.IntN(5) == 0 {
		s.MaxRunning = 1 + r.IntN(len(s.Agents))
	}
	if r.IntN(4) == 0 { // a budget, and agents whose status lines say what they spend
		s.MaxCost, s.Pause = 0.5+float64(r.IntN(30))/10, r.IntN(2) == 0
		for i := range s.Agents {
			s.Agents[i].Persona.Spends = r.IntN(4) > 0
		}
	}
	for i := range 1 + r.IntN(20) {
		t := TaskSpec{ID: fmt.Sprintf("T%d", i+1)}
		if r.IntN(3) > 0 {
			t.Title = fmt.Sprintf("step %d of the night", i+1)
		}
		for j := range i {
			if r.IntN(6) == 0 {
				t.BlockedBy = append(t.BlockedBy, fmt.Sprintf("T%d", j+1))
			}
		}
		if r.IntN(3) == 0 {
			t.Agent = s.Agents[r.IntN(len(s.Agents))].Name
		}
		switch r.IntN(8) {
		case 0:
			t.Verify = "pass"
		case 1:
			t.Verify = "fail"
		case 2:
			t.Verify = "flaky"
		case 3:
			t.Verify = "hang"
		}
		if r.IntN(4) == 0 {
			t.MaxAttempts = 1 + r.IntN(4)
		}
		s.Tasks = append(s.Tasks, t)
	}
	kinds := []OpKind{OpCheckpoint, OpCheckpoint, OpCheckpoint, OpRestart, OpStop, OpStopNow, OpSignal, OpSecond}
	for range r.IntN(6) {
		op := Op{At: time.Duration(r.Int64N(int64(s.Night))), Kind: kinds[r.IntN(len(kinds))]}
		if op.Kind == OpRestart {
			op.Agent = s.Agents[r.IntN(len(s.Agents))].Name
		}
		if op.Kind == OpSecond { // a second signal follows a first
			s.Ops = append(s.Ops, Op{At: op.At, Kind: OpSignal})
			op.At += time.Duration(r.Int64N(int64(3 * time.Second)))
		}
		s.Ops = append(s.Ops, op)
	}
	if s.Pause { // a person raises the budget, or lifts it, now and then
		for range r.IntN(3) {
			op := Op{At: time.Duration(r.Int64N(int64(s.Night))), Kind: OpResume}
			if r.IntN(2) == 0 {
				op.Agent = fmt.Sprintf("%.2f", s.MaxCost*float64(2+r.IntN(3)))
			}
			s.Ops = append(s.Ops, op)
		}
	}
	for range r.IntN(3) { // warden dies now and then; systemd brings it back
		at := time.Duration(r.Int64N(int64(s.Night)))
		s.Ops = append(s.Ops, Op{At: at, Kind: OpKill9}, Op{At: at + sec(1, 30), Kind: OpRun})
	}
	for i, n := 0, len(s.Ops); i < n; i++ { // a person carries a stopped night on
		if k := s.Ops[i].Kind; (k == OpStop || k == OpStopNow || k == OpSignal) && r.IntN(2) == 0 {
			s.Ops = append(s.Ops, Op{At: s.Ops[i].At + sec(5, 60), Kind: OpRun, Agent: []string{"", "", "--fresh", "--from"}[r.IntN(4)]})
		}
	}
	if len(s.Agents) >= 2 && r.IntN(6) == 0 { // review rounds (drawn last: the draws above stay each seed's)
		s.ReviewBy = s.Agents[r.IntN(len(s.Agents))].Name
		if r.IntN(2) == 0 {
			s.MaxReviewRounds = 1 + r.IntN(3)
		}
		for i := range s.Tasks {
			s.Tasks[i].NoReview = s.Tasks[i].Agent == s.ReviewBy || r.IntN(4) == 0
		}
		for i := range s.Agents {
			if s.Agents[i].Name == s.ReviewBy {
				s.Agents[i].Persona.FindingsUntil = r.IntN(4)
			}
		}
	}
	slices.SortStableFunc(s.Ops, func(a, b Op) int { return int(a.At - b.At) })
	return s
}

// TeamFile is the spec's team.toml.
func (s Spec) TeamFile() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"sim\"\nstate_dir = \".warden\"\n")
	fmt.Fprintf(&b, "checkpoint_interval = %q\ncheckpoint_timeout = %q\nshutdown_timeout = %q\n",
		s.Timers.Interval, s.Timers.Timeout, s.Timers.Shutdown)
	fmt.Fprintf(&b, "stale_warning = %q\nstale_failure = %q\n", s.Timers.StaleWarning, s.Timers.StaleFailure)
	if s.Timers.IdleAfter > 0 {
		fmt.Fprintf(&b, "idle_after = %q\nidle_nudges = %d\n", s.Timers.IdleAfter, s.Timers.IdleNudges)
	}
	if !s.Rehydrate {
		b.WriteString("after_team_checkpoint = \"exit\"\n")
	}
	if s.Worktree {
		b.WriteString("workspace = \"worktree\"\nbase = \"main\"\n")
	}
	if s.MaxRunning > 0 {
		fmt.Fprintf(&b, "max_running = %d\n", s.MaxRunning)
	}
	if s.MaxCost > 0 {
		fmt.Fprintf(&b, "max_cost = %.2f\non_budget = %q\n", s.MaxCost, map[bool]string{true: "pause", false: "checkpoint-exit"}[s.Pause])
	}
	if s.OnOverlap != "" {
		fmt.Fprintf(&b, "on_overlap = %q\n", s.OnOverlap)
	}
	if s.ReviewBy != "" {
		fmt.Fprintf(&b, "review_by = %q\n", s.ReviewBy)
	}
	if s.MaxReviewRounds > 0 {
		fmt.Fprintf(&b, "max_review_rounds = %d\n", s.MaxReviewRounds)
	}
	if s.LandBy != "" {
		fmt.Fprintf(&b, "land = \"branch\"\nland_by = %q\nland_verify = [\"sim-verify\", %q, \"land\"]\n", s.LandBy, s.LandVerify)
		if s.LandAttempts > 0 {
			fmt.Fprintf(&b, "land_attempts = %d\n", s.LandAttempts)
		}
	}
	for _, a := range s.Agents {
		fmt.Fprintf(&b, "\n[[agent]]\nname = %q\ncommand = [\"sim-agent\"]\nrestart = %q\nmax_restarts = %d\n",
			a.Name, a.Restart, a.MaxRestarts)
		if a.Persona.Lead {
			b.WriteString("lead = true\n")
		}
		if s.Account {
			b.WriteString("account = \"night\"\n")
		}
	}
	for _, t := range s.Tasks {
		fmt.Fprintf(&b, "\n[[task]]\nid = %q\nprompt = \"do %s\"\n", t.ID, t.ID)
		if t.Title != "" {
			fmt.Fprintf(&b, "title = %q\n", t.Title)
		}
		if len(t.BlockedBy) > 0 {
			fmt.Fprintf(&b, "blocked_by = [\"%s\"]\n", strings.Join(t.BlockedBy, "\", \""))
		}
		if t.Agent != "" {
			fmt.Fprintf(&b, "agent = %q\n", t.Agent)
		}
		if t.Verify != "" {
			fmt.Fprintf(&b, "verify = [\"sim-verify\", %q, %q]\n", t.Verify, t.ID)
		}
		if t.MaxAttempts > 0 {
			fmt.Fprintf(&b, "max_attempts = %d\n", t.MaxAttempts)
		}
		if t.NoReview && s.ReviewBy != "" {
			b.WriteString("review_by = \"\"\n")
		}
	}
	return b.String()
}

// Describe is the spec in a few lines, for a failing seed's trace.
func (s Spec) Describe() string {
	var b strings.Builder
	mode := "shared"
	if s.Worktree {
		mode = "worktree"
	}
	fmt.Fprintf(&b, "seed %d: %s workspace, interval %v, timeout %v, shutdown %v, stale %v/%v, rehydrate %v, a night of %v",
		s.Seed, mode, s.Timers.Interval, s.Timers.Timeout, s.Timers.Shutdown, s.Timers.StaleWarning, s.Timers.StaleFailure, s.Rehydrate, s.Night)
	if s.Account {
		b.WriteString(", one account")
	}
	if s.MaxRunning > 0 {
		fmt.Fprintf(&b, ", max_running %d", s.MaxRunning)
	}
	if s.MaxCost > 0 {
		fmt.Fprintf(&b, ", max_cost $%.2f (pause %v)", s.MaxCost, s.Pause)
	}
	if s.ReviewBy != "" {
		fmt.Fprintf(&b, ", review_by %s (max_review_rounds %d)", s.ReviewBy, s.MaxReviewRounds)
	}
	b.WriteString("\n")
	for _, a := range s.Agents {
		fmt.Fprintf(&b, "  agent %s (restart %s, max %d): %s\n", a.Name, a.Restart, a.MaxRestarts, a.Persona)
	}
	for _, t := range s.Tasks {
		fmt.Fprintf(&b, "  task %s", t.ID)
		if len(t.BlockedBy) > 0 {
			fmt.Fprintf(&b, " blocked_by %v", t.BlockedBy)
		}
		if t.Agent != "" {
			fmt.Fprintf(&b, " pinned to %s", t.Agent)
		}
		if t.Verify != "" {
			fmt.Fprintf(&b, " verify %s", t.Verify)
		}
		if t.MaxAttempts > 0 {
			fmt.Fprintf(&b, " max_attempts %d", t.MaxAttempts)
		}
		if r := s.Reviewer(t.ID); r != "" {
			fmt.Fprintf(&b, " reviewed by %s", r)
		}
		b.WriteString("\n")
	}
	for _, o := range s.Ops {
		fmt.Fprintf(&b, "  at %s\n", o)
	}
	return b.String()
}
