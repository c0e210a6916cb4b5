//go:build !e2e

package control

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/supervisor/face"
	"github.com/wardenhq/warden/supervisor/state"
)

// fakeTeam answers ps with one agent and refuses the rest.
type fakeTeam struct{ stopped chan bool }

func (f *fakeTeam) PS() PS {
	return PS{Team: "fake", Agents: []Agent{{AgentStatus: state.AgentStatus{Name: "a", State: state.Running}}}}
}
func (f *fakeTeam) Screen(string) (*Screen, error) {
	return &Screen{Agent: "a", Rows: []string{"hi"}}, nil
}
func (f *fakeTeam) Viewer(string) (face.Viewer, error) {
	return nil, errors.New("no agent")
}
func (f *fakeTeam) Keys(string, []byte) error { return nil }
func (f *fakeTeam) Send(context.Context, string, string, bool) (face.SendResult, error) {
	return face.SendResult{Outcome: face.Submitted}, nil
}
func (f *fakeTeam) Restart(context.Context, string) (*Restarted, error) { return nil, errors.New("no") }
func (f *fakeTeam) Stop(now bool)                                       { f.stopped <- now }
func (f *fakeTeam) Emit(string, string, ...any)                         {}

func listen(t *testing.T, root string) *Server {
	t.Helper()
	srv, err := Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), &fakeTeam{stopped: make(chan bool, 1)}, NewHub(10))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// The control socket is 0600; a socket left by a warden that died is
// replaced; one a live warden listens on is not.
func TestSocketPrivateStaleReplacedLiveRefused(t *testing.T) {
	root := t.TempDir()
	path := state.NewLayout(root).ControlSocket()
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close() // a dead warden's socket file stays behind
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	srv := listen(t, root)
	defer srv.Close()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Errorf("control socket: %v %v, want a 0600 socket", st.Mode(), err)
	}
	if ps, err := NewClient(root).PS(); err != nil || ps.Team != "fake" {
		t.Errorf("ps over the replaced socket: %+v %v", ps, err)
	}
	if _, err := Listen(hclog.NewNullLogger(), path, &fakeTeam{}, NewHub(1)); !errors.Is(err, unixsock.ErrInUse) {
		t.Errorf("a second server on a live socket: %v, want ErrInUse", err)
	}
}

// Only processes of warden's own user may use the socket (SO_PEERCRED).
func TestOtherUsersRefused(t *testing.T) {
	allowedUID = func() int { return os.Getuid() + 1 }
	defer func() { allowedUID = os.Getuid }()
	root := t.TempDir()
	srv := listen(t, root)
	defer srv.Close()
	_, err := NewClient(root).PS()
	if err == nil || !strings.Contains(err.Error(), "refused: uid") {
		t.Errorf("ps from another uid: %v, want refused", err)
	}
}

// Without a warden, the client says so, naming the state dir.
func TestClientSaysNoWarden(t *testing.T) {
	root := t.TempDir()
	_, err := NewClient(root).PS()
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), root) {
		t.Errorf("ps without a warden: %v", err)
	}
}

// A state dir whose control.sock path would not fit in sun_path gets a
// short socket path (as the hook socket does), and commands find it.
func TestLongStateDirShortSocket(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	root := filepath.Join(t.TempDir(), strings.Repeat("a-long-directory-name-", 6))
	os.MkdirAll(root, 0o700)
	path := state.NewLayout(root).ControlSocket()
	if len(path) > 107 || !strings.HasPrefix(path, os.Getenv("XDG_RUNTIME_DIR")) || !strings.HasSuffix(path, ".control.sock") {
		t.Fatalf("socket path %s (%d bytes)", path, len(path))
	}
	srv := listen(t, root)
	defer srv.Close()
	if _, err := NewClient(root).Screen("a"); err != nil {
		t.Errorf("screen over the short socket: %v", err)
	}
}

// warden stop reaches the team and holds the connection until the server
// closes (the warden is done).
func TestStopWaitsForTheEnd(t *testing.T) {
	root := t.TempDir()
	f := &fakeTeam{stopped: make(chan bool, 1)}
	srv, err := Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), f, NewHub(1))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- NewClient(root).Stop(context.Background(), true, true) }()
	if now := <-f.stopped; !now {
		t.Error("stop --now arrived without now")
	}
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("stop returned before warden was done: %v", err)
	default:
	}
	srv.Close()
	if err := <-done; err != nil {
		t.Errorf("stop: %v", err)
	}
}
