package runner

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/box"
)

// Process is one running process under a pty. Its pid is also its process
// group id and session id.
type Process struct {
	logger hclog.Logger
	name   string
	tag    string
	pid    int
	start  uint64 // the leader's start time (/proc/PID/stat), 0 unknown
	cmd    *exec.Cmd

	ptmx   *os.File // non-blocking master
	wmu    sync.Mutex
	log    *logFile // nil without a LogPath
	output io.Writer

	drainEnd atomic.Int64  // unix nanos; 0 until the leader is reaped
	reaped   chan struct{} // closed by the reaper once the leader is reaped
	status   syscall.WaitStatus
	waitErr  error

	done chan struct{} // closed after reaped and drained
	exit Exit

	killed atomic.Bool
	ready  atomic.Bool // ptmx is set; the reader may start

	reapOnce sync.Once // attached processes: Reaped counts once
	pause    pauser    // Pause parks the reader (pause.go)
}

// Start starts cfg.Argv under a new pty of cfg.Size. On error nothing is left
// running.
func Start(logger hclog.Logger, cfg Config) (*Process, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	logger = logger.Named("runner").With("agent", cfg.Name)
	if len(cfg.Argv) == 0 {
		return nil, fmt.Errorf("start %s: empty argv", cfg.Name)
	}
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Name, cmd.Err)
	}
	cmd.Dir = cfg.Dir
	cfg.Cgroup.apply(cmd)
	tag := newTag()
	cmd.Env = buildEnv(cfg.Env, tag)
	if !cfg.Walls.Empty() {
		if err := box.Walls(cmd, cfg.Walls); err != nil {
			return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
		}
	}

	log, err := openLogFile(logger, cfg)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	p := &Process{
		logger: logger,
		name:   cfg.Name,
		tag:    tag,
		cmd:    cmd,
		log:    log,
		output: cfg.Output,
		reaped: make(chan struct{}),
		done:   make(chan struct{}),
	}
	size := cfg.Size.orDefault()
	var master *os.File
	err = startRegistered(logger, p, func() (int, error) {
		err := inBox(cfg.Scoped, func() error {
			f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: size.Rows, Cols: size.Cols})
			master = f
			return err
		})
		if err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
	if err != nil {
		if log != nil {
			log.abort()
		}
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	p.ptmx, err = nonBlocking(master)
	if err != nil {
		// Unusual (EMFILE): take the process down again rather than run it
		// with a master that neither deadlines nor Close can interrupt.
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.reaped
		_ = master.Close()
		if log != nil {
			_ = log.close()
		}
		return nil, fmt.Errorf("start %s: master: %w", cfg.Name, err)
	}
	logger.Info("agent started", "pid", p.pid, "argv0", cfg.Argv[0], "rows", size.Rows, "cols", size.Cols)
	p.ready.Store(true)
	go p.readLoop()
	return p, nil
}

// nonBlocking replaces the master with a close-on-exec, non-blocking
// duplicate registered with the netpoller, so deadlines and Close work and an
// idle reader parks a goroutine instead of an OS thread.
func nonBlocking(master *os.File) (*os.File, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("syscall conn: %w", err)
	}
	nfd := -1
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("dup: %w", dupErr)
	}
	if err := syscall.SetNonblock(nfd, true); err != nil {
		_ = syscall.Close(nfd)
		return nil, fmt.Errorf("set non-blocking: %w", err)
	}
	_ = master.Close()
	return os.NewFile(uintptr(nfd), "/dev/ptmx"), nil
}

// Pid is the process id, which is also its process group and session id.
func (p *Process) Pid() int { return p.pid }

// Write types b into the terminal. Concurrent Writes never interleave.
func (p *Process) Write(b []byte) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	n, err := p.ptmx.Write(b)
	if err != nil {
		return n, fmt.Errorf("write to %s: %w", p.name, err)
	}
	return n, nil
}

// Resize sets the window size; the kernel sends SIGWINCH to the foreground
// group. A zero field means the default.
func (p *Process) Resize(s Size) error {
	s = s.orDefault()
	rc, err := p.ptmx.SyscallConn()
	if err != nil {
		return fmt.Errorf("resize %s: %w", p.name, err)
	}
	var ioErr error
	if err := rc.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: s.Rows, Col: s.Cols})
	}); err != nil {
		return fmt.Errorf("resize %s: %w", p.name, err)
	}
	if ioErr != nil {
		return fmt.Errorf("resize %s: %w", p.name, ioErr)
	}
	p.logger.Debug("terminal resized", "rows", s.Rows, "cols", s.Cols)
	return nil
}

// Signal sends sig to the whole process group; SIGTERM is followed by
// SIGCONT so that a stopped process can act on it.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.pid, sig); err != nil {
		return fmt.Errorf("signal %s to group %d of %s: %w", sig, p.pid, p.name, err)
	}
	if sig == syscall.SIGTERM {
		_ = syscall.Kill(-p.pid, syscall.SIGCONT)
	}
	p.logger.Debug("signalled process group", "pgid", p.pid, "signal", sig.String())
	return nil
}

// Done is closed after the leader exited and its output was drained.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit is how the process ended; valid after Done.
func (p *Process) Exit() Exit { return p.exit }

// Wait waits for Done and returns Exit.
func (p *Process) Wait() Exit {
	<-p.done
	return p.exit
}

// leaderReaped is called by the reaper, with its lock held, once the leader's
// exit status is collected.
func (p *Process) leaderReaped(ws syscall.WaitStatus, err error) {
	p.status, p.waitErr = ws, err
	if p.cmd != nil { // nil: attached (attach.go), another process's child
		_ = p.cmd.Process.Release() // closes the pidfd; we never call cmd.Wait
	}
	p.startDrain()
	close(p.reaped)
}

func (p *Process) isReaped() bool {
	select {
	case <-p.reaped:
		return true
	default:
		return false
	}
}
