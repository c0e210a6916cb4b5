// Package session runs one process of an agent: it starts it under a pty,
// types its first prompt, reads its screen (or lines) for checkpoint
// answers, asks for checkpoints on the monitor's timers at turn boundaries,
// parks while its account is at its usage limit (park.go), and stops it — asking the CLI to quit first —
// when its task is done, when it stalls or when the team stops. What it
// learns it reports to its agent through Reporter; it knows nothing of the
// team, the queue or the state dir.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/asciicast"
	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/pace"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// Outcome is how a session ended.
type Outcome int

const (
	Exited    Outcome = iota // the process exited on its own
	Stopped                  // the team stopped it
	Stalled                  // stale_failure: stopped, to restart from its checkpoint
	Done                     // its task is complete; warden stopped it
	OverTime                 // the task's max_time ran out; warden stopped it
	Restarted                // warden restart: stopped after a last checkpoint, to start again from it
	Overspent                // the task's max_cost or max_tokens is spent; warden stopped it
)

// Reporter is how a session tells its agent what happened, by concern:
// what it says (Event and Printf fill in the agent and task), the answers
// it read (records), and the facts of its life the agent's state shows.
type Reporter interface {
	Event(name string, kv ...any)
	Printf(format string, a ...any)

	// Record hands over a new checkpoint record; the verdict says whether
	// it is on disk, whether the task is done, or that its verify runs off
	// the loop (the verdict then comes through Session.Verified).
	Record(cp *protocol.Checkpoint) Verdict
	Amend(cp *protocol.Checkpoint) bool // the latest record, completed by late lines: saved?
	Complete()                          // the agent printed CHECKPOINT COMPLETE

	Started(s *Session)        // the process runs
	Prompted()                 // the CLI took the session's first prompt
	Stopping()                 // the team stops this session now
	Waiting(d *profile.Dialog) // the CLI waits on a dialog (nil: no longer)
	Paused(until time.Time)    // parked at the account's limit until then (zero: over)
	Gauge(percent float64)     // the CLI's context gauge

	// Limit is a sign of the account's usage limit seen here: its agents
	// are parked (this one through Park) until the reset, which the best
	// sign gives. LimitOver: the CLI went on by itself after the reset.
	Limit(l LimitSign)
	LimitOver()
}

// Timers are the team file's timers a session runs by (the team reads them
// off its team file).
type Timers struct {
	CheckpointInterval time.Duration
	CheckpointTimeout  time.Duration
	StaleWarning       time.Duration
	StaleFailure       time.Duration
	ShutdownTimeout    time.Duration
	// IdleAfter and IdleNudges are idle_after and idle_nudges (idle.go).
	IdleAfter  time.Duration
	IdleNudges int
	// UsageLimitWait is how long an account stays parked when no sign of
	// its limit gave a reset time.
	UsageLimitWait time.Duration
	// UsageLimitMargin is added to the limit's reset before the account's
	// agents go on (a clock a CLI shows to the minute counts as that
	// minute's end: it rounds down).
	UsageLimitMargin time.Duration
}

// Team is the team's life as a session sees it: the team's last call for a
// checkpoint, its stop, the shared deadline of that stop, and the kill at
// that deadline.
type Team interface {
	LastCall() <-chan struct{}
	Cause() string // why the team checkpoint runs (protocol.Cause*)
	Stopping() <-chan struct{}
	ShutdownCtx() context.Context
	Killing() <-chan struct{}
}

// Config is one session.
type Config struct {
	Agent   string
	Task    *config.Task // nil: no task, no checkpoints
	Attempt int
	Prompt  string // the first prompt
	Profile string // the agent's profile name
	Argv    []string
	Env     []string
	Dir     string
	LogPath string
	Size    runner.Size
	Term    io.Writer // warden wrap: the user's terminal, or nil
	Timers  Timers
	Dialog  DialogPolicy
	// TimeLeft is what is left of the task's max_time (0: no limit).
	TimeLeft time.Duration
	// AfterStall says what follows if this session stalls: whether the
	// agent is restarted from its checkpoint, and if not why (its restart
	// policy: "restart = never", its restart limit, the task's
	// max_attempts). nil: it is restarted. The stuck warning says so.
	AfterStall func() (restart bool, why string)
	// LogMaxSize and LogKeep rotate the agent's terminal log (runner).
	LogMaxSize int64
	LogKeep    int
	Clock      clock.Clock
	Team       Team
	Report     Reporter

	// CastPath names the session's asciicast recording by its session id
	// (nil: not recorded); it is capped at LogMaxSize (recording.go).
	CastPath func(session string) string
	// Cgroup is the cgroup v2 group the process starts in (memory_max), or
	// nil (supervisor/memory/cgroup.go).
	Cgroup *runner.Cgroup
	// Scoped starts the process in a Landlock domain with the signal and
	// abstract-socket scopes (the box: supervisor/memory/box.go).
	Scoped bool
	// Walls are the box's walls the agent starts behind (runner.Config).
	Walls box.WallSpec
	// Channel, when set, attaches a Codex TUI to its own app-server and
	// reads the thread through it too (channel.go).
	Channel *Channel
	// Start starts the process (nil: StartProcess, a program under a pty).
	Start Starter
	// SessionID, when set, is the session's id: a session an earlier
	// warden started, taken back from the team's holder (its Start attaches
	// to the held process; Prompt is empty: nothing is typed again).
	SessionID string
	// Since, when set, is where the checkpoint and stale clocks of a
	// session taken back start: its agent's last checkpoint (they go on as
	// the earlier warden ran them, not from the take-back).
	Since time.Time
	// Awaited, when set, is when the earlier warden typed the checkpoint
	// request a session taken back is at work on: its answer is awaited
	// (checkpoint_timeout from then), no request typed into that turn.
	Awaited time.Time
	// Started, when set, is called once the process was started and
	// agent_started written (or it could not start): the agent holds its
	// team's stop off until then.
	Started func()
}

// Session is one process of an agent working on one task. Its parts: the
// process; what reads the process's output (the reader, the modes, the
// settle timer, the output clock, the tap, the recording); what only the
// loop touches (the monitor, the dialog and usage-limit watches, a
// restart, the record pace, the latest record); the input (warden's typist
// and a person's keys); the inbox of the loop; and the times warden ps
// shows.
type Session struct {
	cfg  Config
	log  hclog.Logger
	r    Reporter
	id   string // session_id: new for every process
	prof *profile.Profile

	proc      Process
	procReady chan struct{} // closed once proc is set
	started   time.Time
	ended     chan struct{} // closed when Run returns
	forced    bool          // its stop needed SIGKILL

	reader *protocol.Reader
	// heldReject: a block rejected while the CLI's turn ran (heldreject.go).
	heldReject *readerEvent
	modes      modes             // the terminal modes and the program's signals
	settle     *settler          // the quiet after output: look at the screen
	out        output            // when the agent's own output came last
	tap        tap               // the output for people looking in (attach, the page)
	rec        *asciicast.Writer // the recording, or nil (recording.go)

	// Owned by the loop (park: its loop part).
	mon *monitor
	// deadRequest: the request a dead warden left in the box was submitted
	// (deadrequest.go); the loop's own.
	deadRequest bool
	// lastAsked: the team asked for a last checkpoint; the next one answers it.
	lastAsked bool
	// ending: the team stopped the agent; its last answers are recorded,
	// nothing is typed (stop.go).
	ending  bool
	dialog  dialogWatch
	limits  limitWatch
	park    parkWatch
	restart restartAsk
	pace    recordPace
	rejects rejectNotice // the lines that say an answer was rejected (rejected.go)
	latest  lastRecord
	use     meter // the CLI's token files (usage.go)
	app     appChannel

	input input // who types into the agent: warden's typist, a person
	inbox inbox // what other goroutines hand the loop
	due   due   // checkpoint request times, for warden ps
}

// output is when the agent's own output came last, and what of the output
// right after warden typed (up to a few times what it typed) is the echo,
// not the agent's own output: unix nanos, written by the output's
// goroutine and the typist.
type output struct {
	last      atomic.Int64 // the last output of the agent's own
	echoUntil atomic.Int64
	echoLeft  atomic.Int64
}

// New prepares a session; Run starts it.
func New(logger hclog.Logger, cfg Config) *Session {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	id := cfg.SessionID
	if id == "" {
		id = newID()
	}
	return &Session{cfg: cfg, log: logger, r: cfg.Report, id: id,
		prof: profileFor(cfg.Profile, logger, cfg.Clock), procReady: make(chan struct{}), ended: make(chan struct{}),
		inbox:   inbox{notify: make(chan struct{}, 1), verdicts: make(chan Verdict, 1)},
		pace:    recordPace{bucket: pace.New(recordBurst, recordEvery)},
		rejects: rejectNotice{bucket: pace.New(rejectBurst, rejectEvery)}}
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ID is the session_id.
func (s *Session) ID() string { return s.id }

// Attempt is the session's attempt number.
func (s *Session) Attempt() int { return s.cfg.Attempt }

// Awaited is when the request a session taken back awaits was typed by
// the earlier warden (zero: none, or a session started by this one).
func (s *Session) Awaited() time.Time {
	if s.cfg.SessionID == "" {
		return time.Time{}
	}
	return s.cfg.Awaited
}

// Unprompted reports whether the session has a first prompt to type: one
// it started (not taken back) on a task. Reporter.Prompted says when the
// CLI took it.
func (s *Session) Unprompted() bool {
	return s.cfg.SessionID == "" && s.cfg.Task != nil && s.cfg.Prompt != ""
}

// Task is the session's task, or nil.
func (s *Session) Task() *config.Task { return s.cfg.Task }

// Pid is the process's pid (its process group), 0 before it started.
func (s *Session) Pid() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid()
}

// Forced reports whether stopping the session needed SIGKILL.
func (s *Session) Forced() bool { return s.forced }

// Write takes the agent's raw output from the runner's reader goroutine.
func (s *Session) Write(p []byte) (int, error) {
	s.recordOutput(p)
	if s.cfg.Term != nil {
		s.cfg.Term.Write(p)
	}
	if s.modes.Write(p) {
		// A program-status probe is answered here, before the emulator
		// answers the device-attributes query that follows it: Claude Code
		// ignores an answer that comes after.
		s.answerProbe()
		s.push(readerEvent{signals: true})
	}
	if now := s.cfg.Clock.Now().UnixNano(); now > s.out.echoUntil.Load() || s.out.echoLeft.Add(-int64(len(p))) < 0 {
		s.out.last.Store(now)
	}
	s.tap.write(p, s.reader)
	s.settle.poke()
	return len(p), nil
}

// ownOutput notes that the agent's own output came now: a block the reader
// read, valid or not, is never warden's echo (the reader leaves the echo
// out), however soon after warden typed it came — an agent that answers a
// request at once answers inside the echo window.
func (s *Session) ownOutput() { s.out.last.Store(s.cfg.Clock.Now().UnixNano()) }

// echoGrace is how long after warden typed the output may be its echo.
const echoGrace = time.Second

// typedNow tells Write that warden just typed n bytes: their echo (and a
// TUI's redraw of its input box) is not the agent's own output.
func (s *Session) typedNow(n int) {
	s.out.echoLeft.Store(int64(3*n + 512))
	s.out.echoUntil.Store(s.cfg.Clock.Now().Add(echoGrace).UnixNano())
}

// Hook hands the session a message from its CLI's own hooks.
func (s *Session) Hook(m hookbus.Message) { s.push(readerEvent{hook: &m}) }

// Owns reports whether process pid is of this session's process tree (a
// hook the agent's CLI ran).
func (s *Session) Owns(pid int) bool {
	select {
	case <-s.procReady:
	default:
		return false
	}
	return s.proc != nil && s.proc.Owns(pid)
}

// Input writes the user's keystrokes (warden wrap) to the agent, never
// inside one of warden's submissions.
func (s *Session) Input(p []byte) {
	s.userTyped(p) // wrapuser.go
	s.input.mu.Lock()
	defer s.input.mu.Unlock()
	s.proc.Write(p)
}

// Resize follows the user's terminal: the pty and the screen reader.
func (s *Session) Resize(size runner.Size) error {
	s.reader.Resize(int(size.Rows), int(size.Cols))
	s.recordResize(size)
	return s.proc.Resize(size)
}

// lastOutput is the time of the last output, or the start.
func (s *Session) lastOutput() time.Time {
	if n := s.out.last.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return s.started
}

func (s *Session) taskID() string {
	if s.cfg.Task == nil {
		return ""
	}
	return s.cfg.Task.ID
}

// StartedAt is when the process was started (zero before Run).
func (s *Session) StartedAt() time.Time { return s.started }

// LastLines is up to n of the last non-empty lines the agent showed — its
// screen as the emulator has it, or a plain program's last lines — with
// control characters removed and warden's typing left out; after the
// process ended, what it said last.
func (s *Session) LastLines(n int) []string {
	if s.reader == nil {
		return nil
	}
	return s.reader.Tail(n)
}
