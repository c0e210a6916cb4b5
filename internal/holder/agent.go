package holder

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/runner"
)

// agent is one process the holder started under a pty of its own, its
// master, the output read while no client held the master, and, once it
// exited, its status.
type agent struct {
	id      string
	tag     string // its runner.RunnerTagEnv value: what it leaves behind carries it
	cgroup  string // the cgroup v2 directory it started in ("": the holder's)
	argv    []string
	started time.Time
	log     hclog.Logger
	cmd     *exec.Cmd

	pid    int           // set once started (before the reaper may take it)
	reaped chan struct{} // closed once the leader's status is in
	ended  atomic.Bool   // reaped, and what it left ended: never signal its group again
	closed chan struct{} // closed once the drain ended and closed the holder's master

	mu            sync.Mutex
	cond          *sync.Cond
	ring          *ring
	fd            int      // the holder's copy of the master, non-blocking; -1 once closed
	reader        *os.File // the drain's duplicate, in the netpoller while the holder reads; nil while paused
	adoptedBy     *conn    // the connection that holds the master, nil when none
	exit          *ExitStatus
	paused        bool      // the drain must not read: a client reads
	reading       bool      // the drain is in a read
	closing       bool      // the drain closes the master and ends
	drainDeadline time.Time // zero while the agent runs
}

// startAgent starts req under a new pty in a session and process group of
// its own (as runner does: creack/pty sets Setsid and Setctty). prepare
// is called with the agent (its tag set) before the fork; register with
// its pid right after the fork, and must set a.pid.
func startAgent(log hclog.Logger, id string, req StartRequest, ringSize int,
	prepare func(*agent), register func(*agent, int)) (*agent, error) {
	if len(req.Argv) == 0 {
		return nil, fmt.Errorf("start %s: empty argv", id)
	}
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("start %s: %w", id, cmd.Err)
	}
	cmd.Dir = req.Dir
	env := req.Env
	if env == nil {
		env = os.Environ()
	}
	tag := runner.NewTag()
	cmd.Env = append(slices.Clip(env), runner.RunnerTagEnv+"="+tag)
	walls := box.WallSpec{Hide: req.Hide, ReadOnly: req.ReadOnly, Writable: req.Writable}
	if !walls.Empty() { // the box's walls, as runner.Start puts them up
		if err := box.Walls(cmd, walls); err != nil {
			return nil, fmt.Errorf("start %s: %w", id, err)
		}
	}
	a := &agent{
		id:      id,
		tag:     tag,
		argv:    slices.Clone(req.Argv),
		started: time.Now(),
		log:     log.With("agent", id),
		cmd:     cmd,
		reaped:  make(chan struct{}),
		closed:  make(chan struct{}),
		ring:    newRing(ringSize),
		fd:      -1,
		cgroup:  req.Cgroup,
	}
	a.cond = sync.NewCond(&a.mu)
	rows, cols := req.Rows, req.Cols
	if rows == 0 {
		rows = runner.DefaultRows
	}
	if cols == 0 {
		cols = runner.DefaultCols
	}
	if req.Cgroup != "" {
		cg, err := runner.OpenCgroup(req.Cgroup)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", id, err)
		}
		defer cg.Close() // once started: the child is in it
		cg.Apply(cmd)
	}
	prepare(a)
	var master *os.File
	err := inBox(req.Scoped, func() error {
		var err error
		master, err = pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", id, req.Argv[0], err)
	}
	a.log = a.log.With("pid", cmd.Process.Pid)
	register(a, cmd.Process.Pid)
	fd, err := nonBlocking(master)
	if err != nil {
		// Without a usable master nobody could read it: take it down.
		_ = syscall.Kill(-a.pid, syscall.SIGKILL)
		_ = master.Close()
		close(a.closed)
		return a, fmt.Errorf("start %s: master: %w", id, err)
	}
	a.mu.Lock()
	a.fd = fd
	a.mu.Unlock()
	a.log.Info("agent started", "argv0", req.Argv[0], "rows", rows, "cols", cols)
	go a.drain()
	return a, nil
}

// inBox runs start, in a Landlock domain of its own when scoped (as
// runner does).
func inBox(scoped bool, start func() error) error {
	if !scoped {
		return start()
	}
	return box.Scoped(start)
}

// nonBlocking replaces f with a close-on-exec, non-blocking duplicate, a
// plain descriptor out of the netpoller (the drain reads a duplicate of it
// that is in the netpoller, so that deadlines wake its reader).
func nonBlocking(f *os.File) (int, error) {
	fd, err := dupFD(f)
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("set non-blocking: %w", err)
	}
	_ = f.Close()
	return fd, nil
}

// info is the agent as a client sees it.
func (a *agent) info() AgentInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.infoLocked()
}

func (a *agent) infoLocked() AgentInfo {
	in := AgentInfo{ID: a.id, Pid: a.pid, Argv: a.argv, Started: a.started, Adopted: a.adoptedBy != nil}
	if a.exit != nil {
		e := *a.exit
		in.Exit = &e
	}
	return in
}

// leaderReaped records the leader's status; the reaper calls it once.
func (a *agent) leaderReaped(ws syscall.WaitStatus) {
	a.mu.Lock()
	a.exit = exitOf(ws, time.Now())
	a.mu.Unlock()
	_ = a.cmd.Process.Release() // never cmd.Wait: the reaper took the status
	close(a.reaped)
	a.log.Info("agent exited", "exit", a.exit.String())
}

// isReaped reports whether the leader's status is in.
func (a *agent) isReaped() bool {
	select {
	case <-a.reaped:
		return true
	default:
		return false
	}
}

// over is called once nothing of the agent runs any more: a client that
// holds the master reads what is left itself, so the holder's copy is
// closed; else the drain reads on until the end of output, for at most
// drainMax.
func (a *agent) over() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fd < 0 {
		return
	}
	if a.paused {
		a.closing = true
		a.cond.Broadcast()
		return
	}
	a.drainDeadline = time.Now().Add(drainMax)
	if a.reader != nil {
		_ = a.reader.SetReadDeadline(a.drainDeadline)
	}
}
