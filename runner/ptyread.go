package runner

import (
	"io"
	"sync"
	"syscall"
)

// Reading the non-blocking master through its raw conn: fill gathers reads
// into one chunk and waits in the netpoller only while it has nothing;
// drainBuffered takes what the terminal already holds without waiting.

// drainReads bounds drainBuffered: four buffers, more than a pty holds (the
// line discipline's 4 KiB and 64 KiB of flip buffers), so all output of a
// leader that has exited fits, while a grandchild that keeps writing cannot
// hold the drain open.
const drainReads = 4

// readBufs holds the read buffers of every Process: a reader takes one
// when its master is readable and gives it back once the chunk is handed
// over, so a waiting reader holds none and a team of 50 flooding agents
// needs about one per CPU, not 50 × 32 KiB.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}

// fill reads the master into a buffer from readBufs (set in *held, which
// the caller gives back with putReadBuf after use) until it is full or the
// next read would block, and returns what it read; it waits (in the
// netpoller) only while it has nothing, holding no buffer then. A pty read
// returns at most what the line discipline holds (4 KiB), so under a flood
// one chunk gathers several reads and the log and Output get one write per
// chunk instead of one per read; output that trickles in is handed over at
// once, read by read.
func fill(rc syscall.RawConn, held **[]byte) (int, error) {
	n := 0
	var readErr error
	err := rc.Read(func(fd uintptr) bool {
		if *held == nil {
			*held = readBufs.Get().(*[]byte)
		}
		var again bool
		n, again, readErr = ReadAvailable(int(fd), **held)
		if n == 0 && again { // nothing yet: wait until readable, without the buffer
			putReadBuf(held)
			return false
		}
		return true
	})
	if err == nil {
		err = readErr
	}
	return n, err
}

// putReadBuf gives *held back to readBufs (nil is left alone).
func putReadBuf(held **[]byte) {
	if *held != nil {
		readBufs.Put(*held)
		*held = nil
	}
}

// ReadAvailable reads fd into buf until buf is full, a read would block
// (again), or a read fails; io.EOF for a read of 0 bytes.
func ReadAvailable(fd int, buf []byte) (n int, again bool, err error) {
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return n, true, nil
		case err != nil:
			return n, false, err
		case m == 0:
			return n, false, io.EOF
		}
		n += m
	}
	return n, false, nil
}

// drainBuffered hands over, without waiting, what the terminal holds when
// the drain's deadline has passed: a reader that did not get the CPU until
// after the deadline (many agents starting at once on a busy machine) still
// gets the output the leader wrote before it exited. A read of a pty with
// nothing in its buffer first runs the kernel's pending buffer work, so
// nothing written before the exit is left behind.
func (p *Process) drainBuffered(rc syscall.RawConn) {
	held := readBufs.Get().(*[]byte)
	defer readBufs.Put(held)
	buf := *held
	for range drainReads {
		var n int
		var again bool
		var err error
		if cerr := rc.Control(func(fd uintptr) { n, again, err = ReadAvailable(int(fd), buf) }); cerr != nil {
			return
		}
		if n > 0 {
			p.sink(buf[:n])
		}
		if again || err != nil || n < len(buf) {
			return
		}
	}
}
