package holder

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/runner"
)

// The drain: while no client holds an agent's master, the holder reads it
// into the agent's ring, so that the agent never blocks on a full pty (a
// Node CLI's event loop stops there). One goroutine per agent reads its
// master; the agent's lock and condition coordinate it with the handover:
//
//   - pause (adopt): paused is set and the read deadline put in the past,
//     which wakes a read waiting in the netpoller; pause returns only once
//     the reader is out of its read (reading false). Every byte the holder
//     read is then in the ring, which the adoption takes and sends with
//     the master. From then on only the client reads.
//   - resume (the adopting connection is gone): the deadline is cleared and
//     the reader reads again. A byte the dying client read but had not
//     handled is lost; none is read twice, as the client is gone.
//
// The master is non-blocking (O_NONBLOCK lives on the open file
// description, so the client's copy is non-blocking too). The holder keeps
// its copy as a plain descriptor, out of its netpoller; the reader reads a
// duplicate made for each stretch of draining (readerLocked).

// drainMax bounds the drain once the agent's processes are gone: what
// they wrote is read until the end of output (EIO), for at most this long
// (a process the holder could not find may hold the slave open).
const drainMax = time.Second

// pastDeadline wakes a reader waiting in the netpoller at once.
var pastDeadline = time.Unix(1, 0)

// drain is the reader goroutine of a's master. It ends, closing the
// holder's copy of the master, at the end of output (EIO: every slave
// closed), at the drain deadline once the agent is over, or when told to
// close.
func (a *agent) drain() {
	defer close(a.closed)
	buf := make([]byte, 32<<10)
	for {
		a.mu.Lock()
		for a.paused && !a.closing {
			a.cond.Wait()
		}
		if a.closing {
			a.closeMasterLocked()
			a.mu.Unlock()
			return
		}
		rc, err := a.readerLocked()
		if err != nil {
			a.log.Error("drain: cannot read the master", "error", err)
			a.closeMasterLocked()
			a.mu.Unlock()
			return
		}
		a.reading = true
		a.mu.Unlock()

		var readErr error
		err = rc.Read(func(fd uintptr) bool {
			n, again, rerr := runner.ReadAvailable(int(fd), buf)
			if n > 0 {
				a.mu.Lock()
				a.ring.write(buf[:n])
				a.mu.Unlock()
			}
			readErr = rerr
			return n > 0 || !again || rerr != nil
		})
		if err == nil {
			err = readErr
		}

		a.mu.Lock()
		a.reading = false
		a.cond.Broadcast()
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && a.paused:
			// handed over: wait for resume
		default:
			if !errors.Is(err, os.ErrDeadlineExceeded) && !endOfOutput(err) {
				a.log.Warn("drain: read failed", "error", err)
			}
			a.closing = true // end of output, or the agent is over and quiet
		}
		a.mu.Unlock()
	}
}

// readerLocked is the raw connection of the drain's reader: a duplicate of
// the holder's copy of the master, registered with the netpoller, made
// when the drain reads again (a.mu is held). It exists only while the
// holder reads: a master registered while a client reads it would wake
// the holder's netpoller at every byte the agent writes (an edge for each
// write on the shared open file description), which cost the holder 0.8 s
// of CPU while warden relayed 200 MB.
func (a *agent) readerLocked() (syscall.RawConn, error) {
	if a.reader == nil {
		fd, err := a.dupLocked()
		if err != nil {
			return nil, err
		}
		// O_NONBLOCK is on the shared open file description: a client that
		// made it blocking (os.File.Fd does) would leave the reader in a
		// read no deadline wakes.
		if err := unix.SetNonblock(fd, true); err != nil {
			_ = unix.Close(fd)
			return nil, fmt.Errorf("set non-blocking: %w", err)
		}
		a.reader = os.NewFile(uintptr(fd), "/dev/ptmx") // non-blocking: pollable
		if !a.drainDeadline.IsZero() {
			_ = a.reader.SetReadDeadline(a.drainDeadline)
		}
	}
	return a.reader.SyscallConn()
}

// dupLocked duplicates the holder's copy of the master (close-on-exec):
// the drain's reader and the copy an adopt sends; a.mu is held.
func (a *agent) dupLocked() (int, error) {
	fd, err := unix.FcntlInt(uintptr(a.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("dup the master: %w", err)
	}
	return fd, nil
}

// pauseLocked stops the reader and waits until it is out of its read,
// then closes the reader's duplicate (out of the netpoller); a.mu is held
// (and released while waiting).
func (a *agent) pauseLocked() {
	a.paused = true
	if a.reader != nil {
		_ = a.reader.SetReadDeadline(pastDeadline)
	}
	for a.reading {
		a.cond.Wait()
	}
	a.closeReaderLocked()
}

// resumeLocked lets the reader read again; a.mu is held.
func (a *agent) resumeLocked() {
	if !a.paused {
		return
	}
	a.paused = false
	a.cond.Broadcast()
}

// closeReaderLocked closes the drain's duplicate of the master; a.mu is
// held.
func (a *agent) closeReaderLocked() {
	if a.reader == nil {
		return
	}
	if err := a.reader.Close(); err != nil {
		a.log.Debug("close the reader's master failed", "error", err)
	}
	a.reader = nil
}

// closeMasterLocked closes the holder's copy of the master; a.mu is held.
func (a *agent) closeMasterLocked() {
	a.closeReaderLocked()
	if a.fd < 0 {
		return
	}
	if err := unix.Close(a.fd); err != nil {
		a.log.Debug("close master failed", "error", err)
	}
	a.fd = -1
	a.closing = true
	a.cond.Broadcast()
}

// endOfOutput is true for the normal ends of a master's stream: EIO (every
// slave closed), EOF, a closed file.
func endOfOutput(err error) bool {
	return errors.Is(err, syscall.EIO) || errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed)
}
