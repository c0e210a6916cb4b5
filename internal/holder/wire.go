package holder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// maxFDsPerRead bounds the descriptors one read accepts (the kernel's
// SCM_MAX_FD is 253); the protocol sends at most one a message.
const maxFDsPerRead = 16

// lineConn reads JSON lines, with the descriptors that came beside them,
// and writes JSON lines, one optionally with a descriptor. Reads are for
// one goroutine; writes are serialized.
type lineConn struct {
	c       *net.UnixConn
	maxLine int

	buf   []byte // read but not yet returned
	fds   []int  // received, not yet taken, oldest first
	chunk []byte // one read's bytes
	oob   []byte // one read's ancillary data

	wmu          sync.Mutex
	writeTimeout time.Duration
}

func newLineConn(c *net.UnixConn, maxLine int, writeTimeout time.Duration) *lineConn {
	return &lineConn{c: c, maxLine: maxLine, writeTimeout: writeTimeout,
		chunk: make([]byte, 64<<10), oob: make([]byte, unix.CmsgSpace(maxFDsPerRead*4))}
}

// errLineTooLong is returned for a line longer than maxLine.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline. Descriptors that
// arrived with it or before it are queued for takeFD.
func (l *lineConn) readLine() ([]byte, error) {
	chunk, oob := l.chunk, l.oob
	for {
		if i := bytes.IndexByte(l.buf, '\n'); i >= 0 {
			line := l.buf[:i]
			l.buf = l.buf[i+1:]
			return line, nil
		}
		if len(l.buf) > l.maxLine {
			return nil, fmt.Errorf("read message: %w (over %d bytes)", errLineTooLong, l.maxLine)
		}
		n, oobn, flags, _, err := l.c.ReadMsgUnix(chunk, oob)
		n, oobn = max(n, 0), max(oobn, 0) // -1 with some errors
		if oobn > 0 {
			l.fds = append(l.fds, parseFDs(oob[:oobn])...)
		}
		if flags&unix.MSG_CTRUNC != 0 {
			return nil, errors.New("read message: descriptors truncated (MSG_CTRUNC)")
		}
		l.buf = append(l.buf, chunk[:n]...)
		if err != nil {
			return nil, fmt.Errorf("read message: %w", err)
		}
		if n == 0 && oobn == 0 {
			return nil, fmt.Errorf("read message: %w", io.EOF)
		}
	}
}

// parseFDs returns the descriptors of SCM_RIGHTS messages in oob.
func parseFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// takeFD returns the oldest received descriptor not yet taken.
func (l *lineConn) takeFD() (int, bool) {
	if len(l.fds) == 0 {
		return -1, false
	}
	fd := l.fds[0]
	l.fds = l.fds[1:]
	return fd, true
}

// closeFDs closes every received descriptor not taken.
func (l *lineConn) closeFDs() {
	for _, fd := range l.fds {
		_ = unix.Close(fd)
	}
	l.fds = nil
}

// writeJSON writes v as one line; with fd >= 0 the descriptor rides as
// SCM_RIGHTS beside the line's first bytes.
func (l *lineConn) writeJSON(v any, fd int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	b = append(b, '\n')
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.writeTimeout > 0 {
		_ = l.c.SetWriteDeadline(time.Now().Add(l.writeTimeout))
	}
	if fd >= 0 {
		// A stream socket may take part of the line: the descriptor went
		// with that part, the rest follows as plain bytes.
		n, _, err := l.c.WriteMsgUnix(b, unix.UnixRights(fd), nil)
		if err != nil {
			return fmt.Errorf("send message with descriptor: %w", err)
		}
		b = b[n:]
	}
	if _, err := l.c.Write(b); err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	return nil
}

// dupFD duplicates the descriptor of f (close-on-exec) without touching
// its blocking mode, which os.File.Fd would.
func dupFD(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("dup %s: %w", f.Name(), err)
	}
	nfd := -1
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return -1, fmt.Errorf("dup %s: %w", f.Name(), err)
	}
	if dupErr != nil {
		return -1, fmt.Errorf("dup %s: %w", f.Name(), dupErr)
	}
	return nfd, nil
}
