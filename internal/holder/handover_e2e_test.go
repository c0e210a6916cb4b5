//go:build e2e

package holder

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// An agent started through the holder is typed to and read through the
// master the client adopted; the socket is private.
func TestAdoptedMasterTypesAndReads(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, func(h *Holder) { h.AdoptWait = 100 * time.Millisecond })
	defer s.end(t)
	for path, want := range map[string]os.FileMode{filepath.Dir(s.socket): 0o700, s.socket: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %04o", path, st.Mode().Perm(), err, want)
		}
	}
	c := dial(t, s)
	a, err := c.Start(ctx(t), chat())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if a.ID == "" || a.Pid <= 0 {
		t.Fatalf("Start = %+v", a)
	}
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 || ads[0].Master == nil {
		t.Fatalf("Adopt = %+v, %v; want one master", ads, err)
	}
	got := readUntil(t, ads[0].Master, ads[0].Output, "ready", contains("ready"))
	if _, err := ads[0].Master.Write([]byte("hello\r")); err != nil {
		t.Fatalf("type: %v", err)
	}
	readUntil(t, ads[0].Master, got, "the answer", contains("got: hello"))
	other := dial(t, s)
	if ads, err := other.Adopt(ctx(t), a.ID); err == nil || len(ads) != 0 {
		t.Errorf("a second client adopted %+v (%v); want a refusal: the first holds the master", ads, err)
	}
	if ads, err := other.Adopt(ctx(t)); err != nil || len(ads) != 0 {
		t.Errorf("a second client adopting all got %+v (%v); want none", ads, err)
	}
	if list, err := c.List(ctx(t)); err != nil || len(list) != 1 || !list[0].Adopted || list[0].Exit != nil {
		t.Errorf("List = %+v, %v; want the one agent, adopted, running", list, err)
	}
	if st, err := c.Stop(ctx(t), a.ID); err != nil || st.Exit == nil {
		t.Errorf("Stop = %+v, %v; want its exit", st, err)
	}
}

// Warden dies (a client process killed with -9 while it held the master and
// read nothing): the holder drains the master again, so the agent, which
// writes far more than a pty holds, goes on; a new client adopts the same
// process with every byte written meanwhile, and types to it.
func TestAgentWorksOnWhileNoClientAndIsAdoptedAgain(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, nil)
	defer s.end(t)
	c := dial(t, s)
	a, err := c.Start(ctx(t), chat())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c.Close() // this client only started it

	const lines = 8192 // 256 KiB: fourteen times what a pty holds
	done := filepath.Join(t.TempDir(), "burst-done")
	dying := startClientProcess(t, s.socket, a.ID, "burst 8192 "+done)
	if err := dying.Process.Kill(); err != nil {
		t.Fatalf("kill the client: %v", err)
	}
	_ = dying.Wait()

	if !waitUntil(time.Now().Add(30*time.Second), func() bool { _, err := os.Stat(done); return err == nil }) {
		t.Fatal("the agent did not finish its burst with no client: its pty was not drained")
	}
	c2 := dial(t, s)
	ads, err := c2.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 || ads[0].Master == nil {
		t.Fatalf("Adopt = %+v, %v", ads, err)
	}
	ad := ads[0]
	if ad.Agent.Pid != a.Pid || ad.Agent.Exit != nil {
		t.Fatalf("adopted %+v; want the live pid %d", ad.Agent, a.Pid)
	}
	// The dead client read nothing after "ready": all of the burst is here,
	// each byte once.
	if want := burst(lines); !bytes.Equal(ad.Output, want) || ad.Dropped != 0 {
		t.Fatalf("buffered %d bytes (dropped %d), want the %d of the burst; tail %q",
			len(ad.Output), ad.Dropped, len(want), tail(ad.Output))
	}
	if _, err := ad.Master.Write([]byte("still there\r")); err != nil {
		t.Fatalf("type: %v", err)
	}
	readUntil(t, ad.Master, nil, "the answer", contains("got: still there"))
}

// A ring smaller than what was written keeps the newest bytes and counts
// the rest.
func TestRingKeepsTheTailWhileNoClient(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, func(h *Holder) { h.RingSize = 16 << 10 })
	defer s.end(t)
	c := dial(t, s)
	a, err := c.Start(ctx(t), chat())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 {
		t.Fatalf("Adopt: %v", err)
	}
	readUntil(t, ads[0].Master, ads[0].Output, "ready", contains("ready"))
	done := filepath.Join(t.TempDir(), "burst-done")
	if _, err := ads[0].Master.Write([]byte("burst 4096 " + done + "\r")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if !waitUntil(time.Now().Add(30*time.Second), func() bool { _, err := os.Stat(done); return err == nil }) {
		t.Fatal("the agent did not finish its burst with no client")
	}
	c2 := dial(t, s)
	ads, err = c2.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 {
		t.Fatalf("Adopt: %v", err)
	}
	// What the holder had not read yet when the client came (a loaded
	// machine's drain lags the agent by up to a pty's buffer) is the
	// client's to read from the master: the ring, then that, is the tail.
	want := burst(4096)
	got := readUntil(t, ads[0].Master, slices.Clone(ads[0].Output), "burst done", contains("burst done"))
	if len(ads[0].Output) != 16<<10 || !bytes.HasSuffix(want, got) ||
		ads[0].Dropped != int64(len(want)-len(got)) {
		t.Fatalf("buffered %d bytes, %d read after, dropped %d; want the last %d or more of %d and the rest counted",
			len(ads[0].Output), len(got)-len(ads[0].Output), ads[0].Dropped, 16<<10, len(want))
	}
}

// The handover loses and repeats nothing: what the first client read,
// then what the holder buffered after it left, then what the second
// client reads is the agent's output, once.
func TestHandoverLosesAndRepeatsNothing(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, nil)
	defer s.end(t)
	c := dial(t, s)
	a, err := c.Start(ctx(t), chat())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 {
		t.Fatalf("Adopt: %v", err)
	}
	readUntil(t, ads[0].Master, ads[0].Output, "ready", func(b []byte) bool { return bytes.HasSuffix(b, []byte("ready\r\n")) })
	if _, err := ads[0].Master.Write([]byte("burst 20000\r")); err != nil {
		t.Fatal(err)
	}
	first := readUntil(t, ads[0].Master, nil, "some of the burst", func(b []byte) bool { return len(b) >= 100<<10 })
	c.Close() // closes the master, then the connection, mid-burst

	c2 := dial(t, s)
	ads, err = c2.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 {
		t.Fatalf("Adopt: %v", err)
	}
	got := append(first, ads[0].Output...)
	got = readUntil(t, ads[0].Master, got, "the end of the burst", contains("burst done\r\n"))
	if want := burst(20000); !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("read %d bytes (first client %d, buffered %d, dropped %d), want %d; first difference at %d: %q",
			len(got), len(first), len(ads[0].Output), ads[0].Dropped, len(want), i, got[i:min(len(got), i+64)])
	}
}

// Handover after handover while the agent writes: what each client read
// and what the holder buffered between them is the agent's output, in
// order, each byte once.
func TestManyHandoversLoseAndRepeatNothing(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, func(h *Holder) { h.RingSize = 8 << 20 }) // the whole burst fits: nothing dropped
	defer s.end(t)
	c := dial(t, s)
	a, err := c.Start(ctx(t), chat())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ads, err := c.Adopt(ctx(t), a.ID)
	if err != nil || len(ads) != 1 {
		t.Fatalf("Adopt: %v", err)
	}
	readUntil(t, ads[0].Master, ads[0].Output, "ready", func(b []byte) bool { return bytes.HasSuffix(b, []byte("ready\r\n")) })
	if _, err := ads[0].Master.Write([]byte("burst 100000\r")); err != nil {
		t.Fatal(err)
	}
	end := contains("burst done\r\n")
	var got []byte
	handovers, buffered := 0, 0
	for !end(got) {
		// Read a varying amount (at least one read), then hand the master back.
		want := len(got) + 1 + (handovers*37<<10)%(160<<10)
		got = readUntil(t, ads[0].Master, got, "more of the burst", func(b []byte) bool { return len(b) >= want || end(b) })
		c.Close()
		if end(got) {
			break
		}
		c = dial(t, s)
		ads, err = c.Adopt(ctx(t), a.ID)
		if err != nil || len(ads) != 1 || ads[0].Master == nil {
			t.Fatalf("Adopt after %d handovers: %+v, %v", handovers, ads, err)
		}
		if ads[0].Dropped != 0 {
			t.Fatalf("the ring dropped %d bytes", ads[0].Dropped)
		}
		got = append(got, ads[0].Output...)
		buffered += len(ads[0].Output)
		handovers++
	}
	if want := burst(100000); !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("after %d handovers read %d bytes, want %d; first difference at %d: %q",
			handovers, len(got), len(want), i, got[i:min(len(got), i+64)])
	}
	if buffered == 0 {
		t.Errorf("the holder read nothing in %d handovers: the test did not test its drain", handovers)
	}
	t.Logf("%d handovers, %d bytes read by the holder between them", handovers, buffered)
}
