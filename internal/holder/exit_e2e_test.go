//go:build e2e

package holder

import (
	"bytes"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// A client is told of an exit as it happens; a client that connects later
// finds it in the list.
func TestExitReportedNowAndLater(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, nil)
	defer s.end(t)
	c := dial(t, s)
	a, err := c.Start(ctx(t), chat())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	b, err := c.Start(ctx(t), fake("idle"))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, ads[0].Master, ads[0].Output, "ready", contains("ready"))
	ads[0].Master.Write([]byte("exit 3\r"))
	select {
	case ev := <-c.Events():
		if ev.Kind != EventExited || ev.Agent.ID != a.ID || ev.Agent.Exit == nil || ev.Agent.Exit.Code != 3 {
			t.Fatalf("event %+v; want %s exited with code 3", ev, a.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit event after 20 s")
	}
	c.Close()

	later := dial(t, s)
	list, err := later.List(ctx(t))
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if e := list[0].Exit; list[0].ID != a.ID || e == nil || e.Code != 3 || e.Signal != 0 {
		t.Errorf("listed %+v; want %s with exit code 3", list[0], a.ID)
	}
	if list[1].ID != b.ID || list[1].Exit != nil {
		t.Errorf("listed %+v; want %s running", list[1], b.ID)
	}
	st, err := later.Stop(ctx(t), b.ID)
	if err != nil || st.Exit == nil || st.Exit.Signal != int(syscall.SIGTERM) {
		t.Errorf("Stop = %+v, %v; want killed by SIGTERM", st, err)
	}
}

// What an agent leaves when its leader exits — a grandchild in its group,
// one escaped into a session of its own, both ignoring SIGTERM and SIGHUP
// — is ended by the holder.
func TestLeftoversOfAnExitedAgentAreEnded(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, func(h *Holder) { h.StopTimeout = 500 * time.Millisecond })
	defer s.end(t)
	c := dial(t, s)
	for _, mode := range []string{"grandchild:ignore:exit", "escape:ignore:exit"} {
		if _, err := c.Start(ctx(t), fake(mode)); err != nil {
			t.Fatalf("Start %s: %v", mode, err)
		}
	}
	for range 2 {
		select {
		case ev := <-c.Events():
			if ev.Agent.Exit == nil || ev.Agent.Exit.Code != 0 {
				t.Errorf("event %+v; want exit code 0", ev)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no exit event after 20 s")
		}
	}
	if !waitUntil(time.Now().Add(20*time.Second), func() bool { return len(proctest.Leftovers()) == 0 }) {
		t.Fatalf("left behind: %v", proctest.Leftovers())
	}
	assertReaped(t) // the grandchild orphaned to the holder (its subreaper) too
}

// The output of an agent that exited while no client held its master is
// kept for the next adoption, which gives it without a master.
func TestOutputOfAnExitedAgentIsAdoptedWithoutItsMaster(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, nil)
	defer s.end(t)
	c := dial(t, s)
	a, err := c.Start(ctx(t), fake("lines:100"))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	select {
	case ev := <-c.Events():
		if ev.Agent.ID != a.ID || ev.Agent.Exit == nil || ev.Agent.Exit.Code != 0 {
			t.Fatalf("event %+v; want %s exited with code 0", ev, a.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit event after 20 s")
	}
	// The holder's copy of the master is closed once the drain read to the
	// end of output; an adoption before that gets the master, read here to
	// its end.
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 {
		t.Fatalf("Adopt = %+v, %v", ads, err)
	}
	out := ads[0].Output
	if ads[0].Master != nil {
		out = readToEnd(t, ads[0].Master, out)
	}
	if !bytes.HasPrefix(out, []byte("line 1\r\n")) || !bytes.HasSuffix(out, []byte("line 100\r\n")) {
		t.Fatalf("adopted output %q; want line 1 to line 100", out)
	}
	assertReaped(t)
}

// No client for OrphanTimeout: the holder stops every agent (one ignores
// SIGTERM and is killed) and returns ErrOrphaned, leaving nothing.
func TestOrphanTimeoutStopsEveryAgent(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, func(h *Holder) {
		h.OrphanTimeout = time.Second
		h.StopTimeout = 500 * time.Millisecond
	})
	defer s.end(t)
	c := dial(t, s)
	var pids []int
	for _, mode := range []string{"idle", "ignore", "grandchild:idle:idle"} {
		a, err := c.Start(ctx(t), fake(mode))
		if err != nil {
			t.Fatalf("Start %s: %v", mode, err)
		}
		pids = append(pids, a.Pid)
	}
	c.Close()
	select {
	case err := <-s.done:
		s.done <- err
		if err != ErrOrphaned {
			t.Fatalf("Serve = %v, want ErrOrphaned", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the holder did not end 30 s after its last client left")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("pid %d alive after the holder ended", pid)
		}
	}
	if left := proctest.Leftovers(); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(s.socket); !os.IsNotExist(err) {
		t.Errorf("socket still there: %v", err)
	}
	assertReaped(t)
}
