package runner

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

const (
	readBufSize = 32 << 10
	// drainQuiet ends the drain after the leader was reaped once no output
	// came for this long: a grandchild or escapee may hold the slave open
	// forever, so end-of-output is never awaited.
	drainQuiet = 100 * time.Millisecond
	// drainMax bounds the whole drain even if output keeps coming. When the
	// drain ends by either, what the terminal holds already is still read
	// (drainBuffered).
	drainMax = time.Second
)

// readLoop is the only reader of the master. It runs from Start until end of
// output (EIO), a drain deadline, or a read error; then it finishes the
// Process.
func (p *Process) readLoop() {
	defer p.finish()
	if end := p.drainEnd.Load(); end != 0 {
		p.setDrainDeadline(end) // reaped before the reader started
	}
	rc, err := p.ptmx.SyscallConn()
	if err != nil {
		p.logger.Warn("read terminal failed", "error", err)
		return
	}
	var held *[]byte // from readBufs while a chunk is read and handed over
	for {
		n, err := fill(rc, &held)
		if n > 0 {
			p.sink((*held)[:n])
			if end := p.drainEnd.Load(); end != 0 {
				p.setDrainDeadline(end)
			} else {
				p.pauseDeadline() // pause.go
			}
		}
		putReadBuf(&held)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && p.parkIfPaused() {
				continue // paused, then resumed (pause.go)
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				p.drainBuffered(rc)
			}
			if !endOfOutput(err) {
				p.logger.Warn("read terminal failed", "error", err)
			}
			return
		}
	}
}

// endOfOutput is true for the normal ends of the stream: EIO (Linux, last
// slave fd closed), EOF (BSD), and the drain deadline.
func endOfOutput(err error) bool {
	return errors.Is(err, syscall.EIO) || errors.Is(err, io.EOF) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed)
}

// sink hands one chunk to the log file, then to Output.
func (p *Process) sink(b []byte) {
	if p.log != nil {
		p.log.write(b) // never fails: log errors are reported, not returned
	}
	if p.output != nil {
		_, _ = p.output.Write(b)
	}
}

// startDrain switches the reader to bounded draining: from now on reads end
// after drainQuiet without output, and at the latest after drainMax.
func (p *Process) startDrain() {
	end := time.Now().Add(drainMax).UnixNano()
	p.drainEnd.Store(end)
	if p.ready.Load() { // else readLoop sets it when it starts
		p.setDrainDeadline(end)
	}
}

func (p *Process) setDrainDeadline(end int64) {
	d := time.Now().Add(drainQuiet)
	if hard := time.Unix(0, end); hard.Before(d) {
		d = hard
	}
	_ = p.ptmx.SetReadDeadline(d)
}

// finish runs once the reader stopped: it waits for the leader's status,
// closes the master and the log, flushes Output and closes Done.
func (p *Process) finish() {
	<-p.reaped
	if err := p.ptmx.Close(); err != nil {
		p.logger.Debug("close master failed", "error", err)
	}
	if f, ok := p.output.(interface{ Flush() }); ok {
		f.Flush()
	}
	if p.log != nil {
		if err := p.log.close(); err != nil {
			p.logger.Error("close log failed", "error", err)
		}
	}
	p.exit = exitFromStatus(p.status, p.waitErr)
	p.logger.Info("agent exited", "pid", p.pid, "exit", p.exit.String(), "killed", p.killed.Load())
	close(p.done)
}
