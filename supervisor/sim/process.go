package sim

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wardenhq/warden/runner"
)

// pidBase is where the simulation's pids start: above the kernel's largest
// pid_max (2^22), so that no kill(2) warden makes of a simulated pid (its
// leftovers check, say) can reach a real process.
const pidBase = 1 << 30

var nextPid atomic.Int64

// proc is an in-process agent behind session.Process: a terminal whose line
// discipline echoes what is typed, a program (mind, on a goroutine of its
// own) that reads lines and writes output, and signals. Its output reaches
// the session from one goroutine, in order, as a pty's reader hands it
// over; Done closes once the program ended and that output was drained.
type proc struct {
	pid  int
	name string
	out  io.Writer

	mu       sync.Mutex
	typed    []byte        // typed, not yet read by the program
	eof      bool          // Ctrl-D typed: the program's next read ends
	inWake   chan struct{} // cap 1: typed or eof
	sigs     []syscall.Signal
	sigWake  chan struct{} // cap 1: a signal
	outq     [][]byte
	outWake  chan struct{} // cap 1: output queued
	exited   bool          // the program ended (outq closes after it)
	exit     runner.Exit
	escapee  bool // it left a process behind, alive until Kill
	killed   bool
	stopped  bool          // SIGSTOP: the program does nothing until SIGCONT
	contWake chan struct{} // closed by SIGCONT
	done     chan struct{}
	started  time.Time
	told     time.Time // first told to stop (SIGTERM, SIGSTOP, Ctrl-D, SIGKILL) or ended
}

func newProc(name string, out io.Writer) *proc {
	return &proc{pid: pidBase + int(nextPid.Add(1)), name: name, out: out,
		inWake: make(chan struct{}, 1), sigWake: make(chan struct{}, 1), outWake: make(chan struct{}, 1),
		done: make(chan struct{}), started: time.Now()}
}

// toldAt is when the program was first told to stop, or ended (zero: not yet).
func (p *proc) toldAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.told
}

func (p *proc) tellLocked() {
	if p.told.IsZero() {
		p.told = time.Now()
	}
}

func exitSignal(sig syscall.Signal) runner.Exit { return runner.Exit{Code: -1, Signal: sig} }

func (p *proc) Pid() int { return p.pid }

// Write is warden typing into the terminal: echoed at once (ECHO, ONLCR),
// read by the program line by line; Ctrl-D at the start of a line is the
// end of input, as in canonical mode.
func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited && !p.escapee {
		return 0, io.ErrClosedPipe
	}
	text := b
	if i := bytes.IndexByte(b, 0x04); i >= 0 {
		text = b[:i]
		p.eof = true
		p.tellLocked()
	}
	p.typed = append(p.typed, text...)
	if len(text) > 0 && !p.exited {
		p.queueLocked(bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n")))
	}
	wake(p.inWake)
	return len(b), nil
}

func (p *proc) Resize(runner.Size) error { return nil }

// Signal delivers sig to the program; SIGTERM is followed by SIGCONT, as
// the runner sends them.
func (p *proc) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return syscall.ESRCH
	}
	if sig != syscall.SIGCONT {
		p.tellLocked()
	}
	switch sig {
	case syscall.SIGSTOP:
		if !p.stopped {
			p.stopped, p.contWake = true, make(chan struct{})
		}
		return nil
	case syscall.SIGCONT:
		p.contLocked()
		return nil
	case syscall.SIGKILL:
		p.endLocked(runner.Exit{Code: -1, Signal: syscall.SIGKILL})
		return nil
	}
	p.sigs = append(p.sigs, sig)
	if sig == syscall.SIGTERM {
		p.contLocked()
	}
	wake(p.sigWake)
	return nil
}

func (p *proc) contLocked() {
	if p.stopped {
		p.stopped = false
		close(p.contWake)
	}
}

func (p *proc) Done() <-chan struct{} { return p.done }

func (p *proc) Exit() runner.Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Stop sends SIGTERM, waits for the program's end until ctx ends, then
// kills whatever is left and waits for Done.
func (p *proc) Stop(ctx context.Context) runner.Exit {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-ctx.Done():
	}
	_ = p.Kill()
	<-p.done
	return p.Exit()
}

// Kill ends the program and any process it left behind.
func (p *proc) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.killed = true
	p.escapee = false
	p.endLocked(runner.Exit{Code: -1, Signal: syscall.SIGKILL})
	return nil
}

// Alive reports whether the program, or a process it left behind, lives.
func (p *proc) Alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.exited || p.escapee
}

func (p *proc) Owns(pid int) bool { return pid == p.pid }

// endLocked ends the program with exit (the first end counts); its output
// drains after.
func (p *proc) endLocked(exit runner.Exit) {
	if p.exited {
		return
	}
	p.exited, p.exit = true, exit
	p.tellLocked()
	p.contLocked()
	wake(p.outWake)
	wake(p.inWake)
	wake(p.sigWake)
}

// exitWith is the program ending by itself; leave: it leaves a process
// behind (a grandchild in a session of its own).
func (p *proc) exitWith(code int, leave bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.exited {
		p.escapee = leave
	}
	p.endLocked(runner.Exit{Code: code})
}

func (p *proc) queueLocked(b []byte) {
	p.outq = append(p.outq, append([]byte(nil), b...))
	wake(p.outWake)
}

// print is the program's output; nothing once it ended.
func (p *proc) print(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.exited {
		p.queueLocked([]byte(s))
	}
}

// pump hands the output to the session, as the runner's reader does, and
// finishes the process once the program ended and its output is drained.
func (p *proc) pump() {
	for {
		p.mu.Lock()
		q, ended := p.outq, p.exited
		p.outq = nil
		p.mu.Unlock()
		for _, b := range q {
			_, _ = p.out.Write(b)
		}
		if len(q) > 0 {
			continue
		}
		if ended {
			break
		}
		<-p.outWake
	}
	if f, ok := p.out.(interface{ Flush() }); ok {
		f.Flush()
	}
	close(p.done)
}

// readLine waits for a line typed (without its newline); eof: the input
// ended (Ctrl-D) or the program was ended. A stopped program waits for
// SIGCONT first.
func (p *proc) pending() (lines []string, eof, ended bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		i := bytes.IndexByte(p.typed, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(bytes.TrimRight(p.typed[:i], "\r")))
		p.typed = p.typed[i+1:]
	}
	if p.eof && len(p.typed) == 0 {
		eof = true
	}
	return lines, eof, p.exited
}

// signals takes the signals delivered since the last call.
func (p *proc) signals() []syscall.Signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sigs
	p.sigs = nil
	return s
}

// held returns a channel closed once the program may run (not stopped).
func (p *proc) held() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return p.contWake
	}
	return nil
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
