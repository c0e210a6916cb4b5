//go:build e2e

package hold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/holder"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// buffer is a concurrency-safe Output.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func waitFor(t *testing.T, b *buffer, s string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(b.String(), s) {
			return
		}
	}
	t.Fatalf("no %q in the output:\n%s", s, b.String())
}

// serve runs a holder in this process on a socket of its own; the
// returned func ends it (stopping what it holds).
func serve(t *testing.T) (string, func()) {
	return serveRing(t, 0)
}

// serveRing is serve with the holder's ring of size bytes (0: its default).
func serveRing(t *testing.T, size int) (string, func()) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s", "holder.sock")
	h := holder.New(hclog.NewNullLogger(), sock)
	h.RingSize = size
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx) }()
	<-h.Ready()
	return sock, func() { cancel(); <-done }
}

func cfg(out *buffer, script string) runner.Config {
	return runner.Config{Name: "a", Argv: []string{"sh", "-c", script}, Output: out,
		Env: fakeagent.Env("")[1:2]}
}

// A process started through the holder is read, written and ended as a
// runner's: its output reaches Output, what warden types reaches it, and
// its exit status comes from the holder.
func TestStartThroughTheHolder(t *testing.T) {
	defer proctest.AssertNone(t)
	sock, end := serve(t)
	defer end()
	h, found, err := Open(hclog.NewNullLogger(), Options{Socket: sock})
	if err != nil || !found {
		t.Fatalf("Open: found %v, %v", found, err)
	}
	defer h.Close()
	out := &buffer{}
	p, err := h.Start(hclog.NewNullLogger(), cfg(out, `echo ready; read x; echo "got $x"; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "ready")
	if _, err := p.Write([]byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
	if e := p.Exit(); e.Code != 3 || e.Err != nil {
		t.Errorf("exit %v, want code 3", e)
	}
	waitFor(t, out, "got hello")
}

// Agents started together through the holder, each writing a flood at once
// (as the side-by-side kit's fan-out does: 4 MB an agent), have every byte
// of it in their output: the master is handed over with the start, so the
// holder's ring never stands between an agent's first bytes and warden.
// Before, the adopt was a request of its own, queued behind the other
// agents' starts on the one connection, while the holder drained the flood
// into a ring that dropped what passed its size: the kit's logs held 1 MiB
// of 4.
func TestAFloodAtStartIsReadWhole(t *testing.T) {
	defer proctest.AssertNone(t)
	sock, end := serveRing(t, 64<<10)
	defer end()
	h, found, err := Open(hclog.NewNullLogger(), Options{Socket: sock})
	if err != nil || !found {
		t.Fatalf("Open: found %v, %v", found, err)
	}
	defer h.Close()
	const agents, size = 12, 1 << 20
	outs := make([]*buffer, agents)
	procs := make([]*runner.Process, agents)
	var wg sync.WaitGroup
	for i := range agents {
		outs[i] = &buffer{}
		wg.Go(func() {
			p, err := h.Start(hclog.NewNullLogger(), cfg(outs[i], fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x; echo; echo END; exec sleep 100`, size)))
			if err != nil {
				t.Error(err)
				return
			}
			procs[i] = p
		})
	}
	wg.Wait()
	for i, p := range procs {
		if p == nil {
			continue
		}
		waitFor(t, outs[i], "END")
		if n := strings.Count(outs[i].String(), "x"); n != size {
			t.Errorf("agent %d: %d of the %d bytes it wrote at its start were read", i, n, size)
		}
		_ = p.Kill()
		<-p.Done()
	}
}

// A process whose connection to the holder is closed goes on (the holder
// drains it); a new connection takes it back with what it printed
// meanwhile; SIGTERM from warden to its group ends it, its status from the
// holder.
func TestTakeBackAfterTheConnectionEnds(t *testing.T) {
	defer proctest.AssertNone(t)
	sock, end := serve(t)
	defer end()
	h, _, err := Open(hclog.NewNullLogger(), Options{Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	out := &buffer{}
	p, err := h.Start(hclog.NewNullLogger(), cfg(out, `echo one; sleep 0.3; echo two; exec sleep 60`))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "one")
	pid := p.Pid()
	h.Close()
	time.Sleep(500 * time.Millisecond) // "two" comes while nobody holds the connection

	h2, found, err := Open(hclog.NewNullLogger(), Options{Socket: sock})
	if err != nil || !found {
		t.Fatalf("Open again: found %v, %v", found, err)
	}
	defer h2.Close()
	agents, err := h2.Agents()
	if err != nil || len(agents) != 1 || agents[0].Pid != pid || agents[0].Exit != nil {
		t.Fatalf("the holder's agents %+v, %v; want pid %d live", agents, err, pid)
	}
	h2.Claim(agents[0].ID)
	if pids, err := h2.StopLive(); err != nil || len(pids) != 0 {
		t.Fatalf("StopLive stopped %v (%v): a claimed agent is left alone", pids, err)
	}
	out2 := &buffer{}
	p2, err := h2.Take(hclog.NewNullLogger(), cfg(out2, ""), agents[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, out2, "two")
	if strings.Contains(out2.String(), "one") {
		t.Errorf("what the first connection read came again:\n%s", out2.String())
	}
	if err := p2.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p2.Done()
	if e := p2.Exit(); e.Signal != syscall.SIGTERM {
		t.Errorf("exit %v, want signal: terminated", e)
	}
}

// The holder killed under a held process: its status is lost, the
// process is ended and Done closes.
func TestHolderGoneEndsTheProcess(t *testing.T) {
	defer proctest.AssertNone(t)
	sock, end := serve(t)
	h, _, err := Open(hclog.NewNullLogger(), Options{Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out := &buffer{}
	p, err := h.Start(hclog.NewNullLogger(), cfg(out, `echo up; exec sleep 60`))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "up")
	end() // the holder stops what it holds and ends: the connection ends with it
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close after the holder ended")
	}
	if e := p.Exit(); e.Signal == 0 && !errors.Is(e.Err, runner.ErrParentGone) {
		t.Errorf("exit %v, want a signal or the lost status", e)
	}
}
