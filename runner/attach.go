package runner

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// Attach makes a Process of a process another process started under a pty
// and is the parent of — warden's holder (internal/holder), which keeps
// an agent alive while no warden runs — from the master it handed over
// (non-blocking, pollable: never call its Fd method) and the output it
// read before (buffered, written to the log and Output first). The
// Process reads, writes, resizes and signals it as one Start made; its
// exit is the parent's to tell (Reaped): until then Done stays open.
// master nil: the process's output ended before the handover. On error
// the master is closed.
func Attach(logger hclog.Logger, cfg Config, pid int, master *os.File, buffered []byte) (*Process, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	logger = logger.Named("runner").With("agent", cfg.Name)
	if pid <= 0 {
		if master != nil {
			_ = master.Close()
		}
		return nil, fmt.Errorf("attach %s: no pid", cfg.Name)
	}
	getReaper(logger) // Kill and Alive sweep with it
	log, err := openLogFile(logger, cfg)
	if err != nil {
		if master != nil {
			_ = master.Close()
		}
		return nil, fmt.Errorf("attach %s: %w", cfg.Name, err)
	}
	p := &Process{
		logger: logger,
		name:   cfg.Name,
		pid:    pid,
		start:  procStart(pid),
		ptmx:   master,
		log:    log,
		output: cfg.Output,
		reaped: make(chan struct{}),
		done:   make(chan struct{}),
	}
	if len(cfg.Replay) > 0 && p.output != nil {
		_, _ = p.output.Write(cfg.Replay) // in the log already
	}
	if len(buffered) > 0 {
		p.sink(buffered)
	}
	logger.Info("agent attached", "pid", pid, "buffered", len(buffered), "master", master != nil)
	p.ready.Store(true)
	if master == nil {
		go p.finish()
		return p, nil
	}
	go p.readLoop()
	return p, nil
}

// ErrParentGone is the Exit.Err of an attached process whose parent can no
// longer tell how it ended.
var ErrParentGone = errors.New("its holder is gone: the exit status is lost")

// Reaped tells an attached Process how its leader ended, as its parent
// saw it (Exit.Err: the status is lost); the first call counts. The reader
// then drains what is left, bounded, and Done closes.
func (p *Process) Reaped(e Exit) {
	p.reapOnce.Do(func() {
		var ws syscall.WaitStatus
		switch {
		case e.Signal != 0:
			ws = syscall.WaitStatus(uint32(e.Signal) & 0x7f)
		default:
			ws = syscall.WaitStatus(uint32(e.Code&0xff) << 8)
		}
		p.leaderReaped(ws, e.Err)
	})
}
