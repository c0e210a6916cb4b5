package unixsock

import (
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"
)

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5): a pidfd of the process that
// connected, which stays that process's even after its pid is given to
// another.
const soPeerPidfd = 77

// Peer is who is at the other end of a connection, as the kernel says.
type Peer struct {
	Pid, Uid int
	Known    bool // the kernel said (SO_PEERCRED)
}

// PeerOf returns the credentials of the process at the other end of c.
func PeerOf(c *net.UnixConn) Peer {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}
	}
	var p Peer
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			p = Peer{Pid: int(cred.Pid), Uid: int(cred.Uid), Known: true}
		}
	})
	return p
}

// Caller is the process that connected, held by a pidfd where the kernel
// gives one: a check of its pid (what /proc says of its parents, its
// session) is about that very process only if it still holds its pid when
// the check is done — Still says so.
type Caller struct {
	Peer
	mu    sync.Mutex
	pidfd int // -1: none (a kernel before 6.5)
}

// Identify returns the caller at the other end of c; Close it.
func Identify(c *net.UnixConn) *Caller {
	cl := &Caller{Peer: PeerOf(c), pidfd: -1}
	raw, err := c.SyscallConn()
	if err != nil {
		return cl
	}
	_ = raw.Control(func(fd uintptr) {
		if pfd, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, soPeerPidfd); err == nil && pfd >= 0 {
			unix.CloseOnExec(pfd)
			cl.pidfd = pfd
		}
	})
	return cl
}

// Still reports whether the process that connected still holds its pid
// (alive, or exited but not yet reaped): then what was read about Pid
// before this call was about it, not about a process that got its pid
// since. Without a pidfd (an older kernel) it cannot tell, and says true.
func (c *Caller) Still() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pidfd < 0 {
		return true
	}
	return unix.PidfdSendSignal(c.pidfd, 0, nil, 0) == nil
}

// Close releases the pidfd.
func (c *Caller) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pidfd >= 0 {
		_ = unix.Close(c.pidfd)
		c.pidfd = -1
	}
}

// Refusals puts refused connections in the log at most once every Every,
// with how many it stands for: a flood of them is a line every few
// seconds, never a line each.
type Refusals struct {
	Every time.Duration
	mu    sync.Mutex
	last  time.Time
	n     int
}

// Warn counts one refusal and logs msg (with kv and the count) when the
// last line is Every old.
func (r *Refusals) Warn(log hclog.Logger, msg string, kv ...any) {
	r.mu.Lock()
	r.n++
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < r.Every {
		r.mu.Unlock()
		return
	}
	n := r.n
	r.last, r.n = now, 0
	r.mu.Unlock()
	log.Warn(msg, append(kv, "refused", n, "every", r.Every)...)
}
