package hookbus

import (
	"errors"
	"net"
	"testing"
	"time"
)

// A hook socket whose listener is gone under it (closed, not by Close)
// says so once on Failed — no hook reaches the team any more — instead of
// accepting again forever; Close still takes it down, and a socket taken
// down by Close says nothing.
func TestFailedWhenTheListenerIsGone(t *testing.T) {
	s := listen(t, t.TempDir())
	s.ln.Close()
	select {
	case err := <-s.Failed():
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Failed: %v, want the listener closed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hook socket never said it failed")
	}
	s.Close()

	quiet := listen(t, t.TempDir())
	quiet.Close()
	select {
	case err := <-quiet.Failed():
		t.Errorf("Failed after Close: %v", err)
	default:
	}
}
