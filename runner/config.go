package runner

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/box"
)

// RunnerTagEnv is set in every started process's environment to a value
// unique to that Process within this supervisor process.
const RunnerTagEnv = "WARDEN_RUNNER_TAG"

// Default window size, used for a zero Size.
const (
	DefaultRows = 50
	DefaultCols = 200
)

// Size is a terminal window size; the zero value means 50 rows x 200 cols.
type Size struct{ Rows, Cols uint16 }

func (s Size) orDefault() Size {
	if s.Rows == 0 {
		s.Rows = DefaultRows
	}
	if s.Cols == 0 {
		s.Cols = DefaultCols
	}
	return s
}

// Config describes the process to start.
type Config struct {
	Name string   // agent name, for logs
	Argv []string // argv[0] looked up in PATH; no shell
	Dir  string   // working dir ("" = current)
	Env  []string // extra "K=V" appended to os.Environ(); TERM=xterm-256color and COLORTERM=truecolor set unless given
	Size Size
	// LogPath gets the raw output, appended across sessions (created 0600,
	// parent dirs 0700; a symbolic link or non-regular file there is refused);
	// "" = no log. Before a write would take it past LogMaxSize bytes it is
	// renamed to LogPath.1 (LogPath.1 … to .2 …, the oldest of LogKeep
	// dropped) and a new one is started. 0 (or less) means the defaults:
	// DefaultLogMaxSize, DefaultLogKeep.
	LogPath    string
	LogMaxSize int64
	LogKeep    int
	// OnLogError, if set, is called when the log fails (open, rotate, write:
	// ENOSPC, EIO, …) with the error, once, not per failed write; and once
	// with nil when a write works again. Meanwhile output still flows to
	// Output but is not logged, and the log is reopened at most every
	// LogRetryEvery (0 = DefaultLogRetryEvery). It is called from Start or the
	// reader goroutine, which it holds up: it must not block.
	OnLogError    func(err error)
	LogRetryEvery time.Duration
	// Replay (Attach only) is output an earlier supervisor had read and
	// logged: handed to Output, not logged again, before the buffered
	// output (attach.go).
	Replay []byte
	// Output, if set, gets every chunk in order from the reader goroutine and
	// must not retain the slice. If it has a Flush() method (like *Lines), that
	// is called once after the last chunk, before Done is closed.
	Output io.Writer
	// Cgroup, if set, is the cgroup v2 group the process starts in
	// (cgroup_linux.go); nil: warden's own.
	Cgroup *Cgroup
	// Scoped starts the process in a Landlock domain of its own with the
	// signal and abstract-socket scopes (internal/box): it and all it
	// starts cannot signal warden or another agent. Start fails when the
	// kernel has no scopes; the caller asks box.Available first.
	Scoped bool
	// Walls are the box's walls the process and all it starts are behind
	// (internal/box: a user and mount namespace of their own, an empty
	// mount over each hidden path, the read-only directories read-only but
	// their writable holes); empty: no walls. The caller asks
	// box.WallsAvailable first.
	Walls box.WallSpec
}

// Exit is how a process ended.
type Exit struct {
	Code   int            // exit code, -1 if killed by a signal
	Signal syscall.Signal // 0 unless killed by a signal
	Err    error          // start/wait error, if any
}

// String is "exit code 3", "signal: killed" or "error: …".
func (e Exit) String() string {
	switch {
	case e.Err != nil:
		return "error: " + e.Err.Error()
	case e.Signal != 0:
		return "signal: " + e.Signal.String()
	default:
		return fmt.Sprintf("exit code %d", e.Code)
	}
}

// Success reports a clean exit with code 0.
func (e Exit) Success() bool { return e.Err == nil && e.Signal == 0 && e.Code == 0 }

func exitFromStatus(ws syscall.WaitStatus, err error) Exit {
	switch {
	case err != nil:
		return Exit{Code: -1, Err: err}
	case ws.Signaled():
		return Exit{Code: -1, Signal: ws.Signal()}
	default:
		return Exit{Code: ws.ExitStatus()}
	}
}

var tagSeq atomic.Uint64

func newTag() string {
	return strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(tagSeq.Add(1), 10)
}

// buildEnv is os.Environ() without the outer terminal's variables
// (env.go), the terminal defaults, cfg.Env, then the tag; exec.Cmd keeps
// the last value of a repeated key, so cfg.Env overrides the defaults.
func buildEnv(extra []string, tag string) []string {
	return append(Environ(extra), RunnerTagEnv+"="+tag)
}

// Environ is the environment a process gets from Start, without its runner
// tag: os.Environ() without the outer terminal's variables, the terminal
// defaults, then extra. A process started elsewhere (warden's holder) gets
// its tag there.
func Environ(extra []string) []string {
	base := inheritedEnv()
	env := make([]string, 0, len(base)+len(extra)+3)
	env = append(env, base...)
	env = append(env, "TERM=xterm-256color", "COLORTERM=truecolor")
	return append(env, extra...)
}
