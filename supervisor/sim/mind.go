package sim

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// Persona is how one agent of a simulated team behaves, drawn from the
// seed: each of its sessions draws its own moments from it.
type Persona struct {
	AnswerMin, AnswerMax time.Duration // how long it takes to answer a request
	CompleteAfter        int           // it says complete at this answer of a session (0: never)
	Blocked              float64       // chance an answer says blocked
	Garbage              float64       // chance an answer is a block warden must reject
	Unasked              float64       // chance, a second, of a checkpoint nobody asked for
	Chatter              time.Duration // a line of output this often (0: quiet between answers)
	Hang                 float64       // chance a session goes silent for good at a random moment
	Crash                float64       // chance a session crashes (exit 3) at a random moment
	CrashAfter           time.Duration // every session crashes (exit 3) this long after it started (0: never)
	Exit                 float64       // chance a session exits 0 at a random moment
	IgnoreTerm           bool          // SIGTERM does nothing (only SIGKILL ends it)
	IgnoreEOF            bool          // Ctrl-D does nothing
	Leaves               bool          // when it ends by itself it leaves a process behind
	Lead                 bool          // prints CHECKPOINT COMPLETE now and then
	Limit                float64       // chance a session hits its account's usage limit (its status line says so)
	Spends               bool          // its status line reports what the session spent, after each answer
	// Same: every answer is the same block (40 %, one Completed item):
	// an agent that stopped working and sits at its prompt.
	Same bool
	// Files: what its records name in Files Modified (nil: work/{task}.txt,
	// a file of its task's own).
	Files []string
	// Writes: each answer also writes work/{task}.txt in its session's
	// dir, for a worktree to commit (a land has something to merge).
	Writes bool
	// FindingsUntil: as a reviewer, its answer to review rounds up to this
	// one names a finding (its Remaining); later rounds it approves.
	FindingsUntil int
}

func (p Persona) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "answers in %v-%v", p.AnswerMin, p.AnswerMax)
	if p.CompleteAfter > 0 {
		fmt.Fprintf(&b, ", complete at answer %d", p.CompleteAfter)
	} else {
		b.WriteString(", never completes")
	}
	for _, f := range []struct {
		name string
		p    float64
	}{{"blocked", p.Blocked}, {"garbage", p.Garbage}, {"unasked/s", p.Unasked}, {"hangs", p.Hang}, {"crashes", p.Crash}, {"exits", p.Exit}, {"limit", p.Limit}} {
		if f.p > 0 {
			fmt.Fprintf(&b, ", %s %.2f", f.name, f.p)
		}
	}
	if p.CrashAfter > 0 {
		fmt.Fprintf(&b, ", crashes after %v", p.CrashAfter)
	}
	if p.FindingsUntil > 0 {
		fmt.Fprintf(&b, ", reviews find something until round %d", p.FindingsUntil)
	}
	if p.Chatter > 0 {
		fmt.Fprintf(&b, ", chatters every %v", p.Chatter)
	}
	for _, f := range []struct {
		name string
		on   bool
	}{{"ignores SIGTERM", p.IgnoreTerm}, {"ignores Ctrl-D", p.IgnoreEOF}, {"leaves a process", p.Leaves}, {"lead", p.Lead}, {"spends", p.Spends}, {"answers the same block", p.Same}} {
		if f.on {
			b.WriteString(", " + f.name)
		}
	}
	return b.String()
}

// horizon bounds the random moments of one session.
const horizon = 60 * time.Second

// mind is the program of one session: it reads the lines warden types and
// answers CHECKPOINT REQUESTs with blocks, each with a mark of its own
// (Notes: answer …) by which the simulation counts what was recorded.
type mind struct {
	p       *proc
	w       *World
	agent   string
	session int
	who     Persona
	rng     *rand.Rand

	dir     string // its session's working dir
	task    string
	answers int
	spent   float64     // dollars the session spent so far
	due     []time.Time // answers owed, by when
	silent  bool
	crashAt time.Time
	exitAt  time.Time
	hangAt  time.Time
	limitAt time.Time // its status line says the account's limit is reached
	next    time.Time // the next chatter line or unasked checkpoint
}

func (m *mind) run() {
	go m.p.pump()
	now := time.Now()
	at := func(chance float64) time.Time {
		if m.rng.Float64() >= chance {
			return time.Time{}
		}
		return now.Add(time.Duration(m.rng.Int64N(int64(horizon))))
	}
	m.crashAt, m.exitAt, m.hangAt, m.limitAt = at(m.who.Crash), at(m.who.Exit), at(m.who.Hang), at(m.who.Limit)
	if m.who.CrashAfter > 0 {
		m.crashAt = now.Add(m.who.CrashAfter)
	}
	m.next = now.Add(time.Second)
	for {
		if held := m.p.held(); held != nil {
			<-held
			continue
		}
		if m.step() {
			return
		}
		wait := m.nextMoment()
		var timer *time.Timer
		var fire <-chan time.Time
		if !wait.IsZero() {
			timer = time.NewTimer(time.Until(wait))
			fire = timer.C
		}
		select {
		case <-m.p.inWake:
		case <-m.p.sigWake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// step handles what is due now; true once the program ended.
func (m *mind) step() bool {
	for _, sig := range m.p.signals() {
		if sig == syscall.SIGTERM && !m.who.IgnoreTerm {
			m.p.mu.Lock()
			m.p.endLocked(exitSignal(syscall.SIGTERM))
			m.p.mu.Unlock()
		}
	}
	lines, eof, ended := m.p.pending()
	if ended {
		return true
	}
	now := time.Now()
	for _, l := range lines {
		m.read(l, now)
	}
	if eof && !m.who.IgnoreEOF {
		m.p.exitWith(0, false)
		return true
	}
	switch {
	case !m.crashAt.IsZero() && !now.Before(m.crashAt):
		m.p.print("crashing on purpose\n")
		m.p.exitWith(3, m.who.Leaves)
		return true
	case !m.exitAt.IsZero() && !now.Before(m.exitAt):
		m.p.print("all done here, bye\n")
		m.p.exitWith(0, m.who.Leaves)
		return true
	case !m.hangAt.IsZero() && !now.Before(m.hangAt):
		m.silent, m.hangAt = true, time.Time{}
	case !m.limitAt.IsZero() && !now.Before(m.limitAt):
		m.limitAt = time.Time{}
		reset := now.Add(5*time.Second + time.Duration(m.rng.Int64N(int64(time.Minute))))
		m.w.limit(m.p, m.agent, reset)
	}
	if m.silent {
		return false
	}
	for len(m.due) > 0 && !now.Before(m.due[0]) {
		m.due = m.due[1:]
		m.answer("request")
	}
	if !now.Before(m.next) {
		if m.who.Chatter > 0 {
			m.p.print(fmt.Sprintf("working on %s, step %d\n", m.task, m.answers))
		}
		if m.task != "" && m.rng.Float64() < m.who.Unasked {
			m.answer("unasked")
		}
		m.next = now.Add(max(m.who.Chatter, time.Second))
	}
	return false
}

func (m *mind) nextMoment() time.Time {
	var t time.Time
	for _, c := range []time.Time{m.crashAt, m.exitAt, m.hangAt, m.limitAt} {
		if !c.IsZero() && (t.IsZero() || c.Before(t)) {
			t = c
		}
	}
	if m.silent {
		return t
	}
	if len(m.due) > 0 && (t.IsZero() || m.due[0].Before(t)) {
		t = m.due[0]
	}
	if t.IsZero() || m.next.Before(t) {
		t = m.next
	}
	return t
}

// read takes one line warden typed.
func (m *mind) read(line string, now time.Time) {
	if strings.HasPrefix(line, "REVIEW REQUEST ") || strings.Contains(line, "was reviewed by") || strings.HasPrefix(line, "- finding of round") {
		m.w.mu.Lock()
		m.w.reviewHeard = append(m.w.reviewHeard, m.agent+": "+line)
		m.w.mu.Unlock()
	}
	switch {
	case strings.HasPrefix(line, "Your task: "):
		id := strings.TrimPrefix(line, "Your task: ")
		id, _, _ = strings.Cut(id, " ")
		m.task = strings.TrimSuffix(id, ".")
	case strings.HasPrefix(line, protocol.RequestPrefix+" "):
		id := strings.TrimPrefix(line, protocol.RequestPrefix+" ")
		id, _, _ = strings.Cut(id, " ")
		if m.task == "" {
			m.task = id
		}
		d := m.who.AnswerMin
		if span := m.who.AnswerMax - m.who.AnswerMin; span > 0 {
			d += time.Duration(m.rng.Int64N(int64(span)))
		}
		m.due = append(m.due, now.Add(d))
	}
}

// answer prints one checkpoint block (or a bad one).
func (m *mind) answer(why string) {
	if m.task == "" {
		return
	}
	m.answers++
	mark := fmt.Sprintf("answer %s/%d/%d", m.agent, m.session, m.answers)
	status, progress := protocol.StatusImplementing, min(5*m.answers, 95)
	switch {
	case m.who.CompleteAfter > 0 && m.answers >= m.who.CompleteAfter:
		status, progress = protocol.StatusComplete, 100
	case m.rng.Float64() < m.who.Blocked:
		status = protocol.StatusBlocked
	}
	if m.rng.Float64() < m.who.Garbage {
		m.p.print(fmt.Sprintf("CHECKPOINT: %s\nStatus: in_progress\nCompleted:\n- step %d\nRemaining:\n- more\n"+
			"Files Modified: none\nEstimated Progress: %d%%\nNotes: %s (garbage)\n\n", m.task, m.answers, progress, mark))
		m.w.answered(m.p, m.agent, mark, m.task, false, why)
		return
	}
	if m.who.Spends { // a turn costs something; the status line says the session's total
		m.spent += 0.01 * float64(1+m.rng.IntN(20))
		m.w.spend(m.p, m.agent, m.spent)
	}
	step := m.answers
	if m.who.Same {
		step, progress = 1, 40
	}
	files := "work/" + m.task + ".txt"
	if m.who.Writes && m.dir != "" {
		os.MkdirAll(filepath.Join(m.dir, "work"), 0o755)
		os.WriteFile(filepath.Join(m.dir, files), []byte(mark+"\n"), 0o644)
	}
	if len(m.who.Files) > 0 {
		files = strings.Join(m.who.Files, ", ")
	}
	completed, remaining := fmt.Sprintf("step %d", step), fmt.Sprintf("step %d", step+1)
	if _, round, ok := config.ParseReviewID(m.task); ok && status == protocol.StatusComplete {
		// A review round's answer: a finding, or approved.
		files, completed, remaining = "none", "approved", "nothing"
		if round <= m.who.FindingsUntil {
			completed, remaining = "reviewed", fmt.Sprintf("finding of round %d", round)
		}
	}
	m.p.print(fmt.Sprintf("CHECKPOINT: %s\nStatus: %s\nCompleted:\n- %s\nRemaining:\n- %s\n"+
		"Files Modified: %s\nEstimated Progress: %d%%\nNotes: %s\n\n",
		m.task, status, completed, remaining, files, progress, mark))
	m.w.answered(m.p, m.agent, mark, m.task, true, why)
	if m.who.Lead && m.rng.Float64() < 0.2 { // a team checkpoint it ran itself
		m.p.print(protocol.CompleteMarker + "\n")
	}
}

// newMind draws a session's randomness from the seed, the agent and the
// session's number: the same seed gives each session the same moments,
// whatever order goroutines ran in.
func newMind(w *World, p *proc, agent string, session int, who Persona) *mind {
	var h uint64 = 14695981039346656037
	for _, c := range agent {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return &mind{p: p, w: w, agent: agent, session: session, who: who,
		rng: rand.New(rand.NewPCG(uint64(w.seed), h+uint64(session)))}
}
