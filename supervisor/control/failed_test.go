//go:build !e2e

package control

import (
	"errors"
	"net"
	"testing"
	"time"
)

// A control socket whose listener is gone under it (closed, not by Close)
// says so once on Failed — nobody can reach the team through it any more
// — instead of accepting again forever; Close still takes it down, and a
// socket taken down by Close says nothing.
func TestFailedWhenTheListenerIsGone(t *testing.T) {
	srv := listen(t, t.TempDir())
	srv.ln.Close()
	select {
	case err := <-srv.Failed():
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Failed: %v, want the listener closed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the control socket never said it failed")
	}
	srv.Close()

	quiet := listen(t, t.TempDir())
	quiet.Close()
	select {
	case err := <-quiet.Failed():
		t.Errorf("Failed after Close: %v", err)
	default:
	}
}
