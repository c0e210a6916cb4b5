package unixsock

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// An Accept error means the listener is gone only when no later Accept can
// succeed: closed, or its descriptor no socket; running out of descriptors
// or memory, or a connection aborted, passes.
func TestDead(t *testing.T) {
	accept := func(err error) error { return &net.OpError{Op: "accept", Net: "unix", Err: err} }
	for _, c := range []struct {
		err  error
		dead bool
	}{
		{accept(net.ErrClosed), true},
		{fmt.Errorf("control socket: accept: %w", accept(net.ErrClosed)), true},
		{accept(os.NewSyscallError("accept4", syscall.EBADF)), true},
		{accept(os.NewSyscallError("accept4", syscall.EINVAL)), true},
		{accept(os.NewSyscallError("accept4", syscall.EMFILE)), false},
		{accept(os.NewSyscallError("accept4", syscall.ENFILE)), false},
		{accept(os.NewSyscallError("accept4", syscall.ENOBUFS)), false},
		{accept(os.NewSyscallError("accept4", syscall.ECONNABORTED)), false},
	} {
		if got := Dead(c.err); got != c.dead {
			t.Errorf("Dead(%v) = %v, want %v", c.err, got, c.dead)
		}
	}
}
