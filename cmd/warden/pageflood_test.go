//go:build e2e

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// flooder holds n connections to addr without the token, the way an
// attacker would, and opens a new one a second after each that warden
// closes, until ctx ends. opener is what each sends first (nothing: an idle
// connection); trickle, when set, is sent every second after it (a
// slowloris that never ends its header).
type flooder struct {
	name            string
	from            string // the client's address (127.0.0.1 when empty)
	opener, trickle string
	open, dialed    atomic.Int64
	refused         atomic.Int64 // dials that failed
	longest         atomic.Int64 // the longest a connection stayed open, in ms
	answered        atomic.Int64 // connections that got an answer (a full request's 401)
	closedAfterAns  atomic.Int64 // … and were closed within a second of it
}

func (f *flooder) run(ctx context.Context, wg *sync.WaitGroup, addr string, n int) {
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				f.hold(ctx, addr)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}()
	}
}

func (f *flooder) hold(ctx context.Context, addr string) {
	d := net.Dialer{Timeout: 3 * time.Second}
	if f.from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(f.from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		f.refused.Add(1)
		return
	}
	f.dialed.Add(1)
	f.open.Add(1)
	start := time.Now()
	defer func() {
		f.open.Add(-1)
		if ms := time.Since(start).Milliseconds(); ms > f.longest.Load() {
			f.longest.Store(ms) // racy max: good enough for a bound
		}
	}()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	defer c.Close()
	if f.opener != "" {
		if _, err := io.WriteString(c, f.opener); err != nil {
			return
		}
	}
	if f.trickle != "" {
		go func() {
			for ctx.Err() == nil {
				time.Sleep(time.Second)
				if _, err := io.WriteString(c, f.trickle); err != nil {
					return
				}
			}
		}()
	}
	buf := make([]byte, 4096)
	var answeredAt time.Time
	for {
		n, err := c.Read(buf)
		if n > 0 && answeredAt.IsZero() && strings.HasPrefix(string(buf[:n]), "HTTP/1.1 401") {
			answeredAt = time.Now()
			f.answered.Add(1)
		}
		if err != nil {
			if !answeredAt.IsZero() && time.Since(answeredAt) < time.Second {
				f.closedAfterAns.Add(1)
			}
			return
		}
	}
}

// Item 2 of issue 22: two clients without the token hold thousands of
// connections to the page — idle ones and slowloris ones that never end
// their header from one address, keep-alive ones after a 401 from another —
// and open a new one for each closed, against a warden whose
// descriptors are limited to 1024, while a team of fake agents checkpoints
// every 300 ms. Meanwhile every agent's checkpoints are still saved, no
// checkpoint fails for want of a descriptor, `warden ps` answers, the page
// holds no more descriptors than its budget, a connection that got its 401
// is closed at once and the others within the header timeout; `warden stop`
// ends the team as usual. Today's page took every descriptor.
func TestPageFloodCostsTheTeamNothing(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=1000", task: true},
		opsAgent{name: "w2", mode: "worker:steps=1000", task: true},
		opsAgent{name: "w3", mode: "worker:steps=1000", task: true})
	b := make([]byte, 16)
	rand.Read(b)
	page := startPageRun(t, team, 1024, []string{"WARDEN_HTTP_TOKEN=" + hex.EncodeToString(b)})
	defer page.stop()
	pid := page.cmd.Process.Pid
	for _, a := range []string{"w1", "w2", "w3"} {
		waitEvents(t, team, "checkpoint_received", a, 2)
	}
	baseline := openFDs(pid)
	addr := strings.TrimPrefix(page.base, "http://")
	calm := map[string]int{}
	for _, a := range []string{"w1", "w2", "w3"} {
		calm[a] = len(eventsNamed(team, "checkpoint_received", a))
	}
	time.Sleep(5 * time.Second)
	for _, a := range []string{"w1", "w2", "w3"} {
		calm[a] = len(eventsNamed(team, "checkpoint_received", a)) - calm[a]
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	idle := &flooder{name: "idle"}
	keepAlive := &flooder{name: "keep-alive 401", from: "127.0.0.2", opener: "GET /api/ps HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"}
	slow := &flooder{name: "slowloris", opener: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ", trickle: "a"}
	idle.run(ctx, &wg, addr, 1500)
	keepAlive.run(ctx, &wg, addr, 1500)
	slow.run(ctx, &wg, addr, 1000)
	time.Sleep(3 * time.Second) // the flood is under way

	// Ten seconds under the flood: fds sampled, checkpoints counted, ps.
	before := map[string]int{}
	for _, a := range []string{"w1", "w2", "w3"} {
		before[a] = len(eventsNamed(team, "checkpoint_received", a))
	}
	maxFDs := 0
	psOK, psTried := 0, 0
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		maxFDs = max(maxFDs, openFDs(pid))
		if psTried < 3 {
			psTried++
			if _, errOut, code := wardenCmdWithin(15*time.Second, "ps", team); code == 0 {
				psOK++
			} else {
				t.Logf("warden ps under the flood: exit %d: %s", code, strings.TrimSpace(errOut))
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("warden's descriptors: %d before the flood, at most %d under it (limit 1024); flood: idle %d dialed/%d open, keep-alive %d dialed/%d open (%d answered 401, %d of them closed within 1 s), slowloris %d dialed/%d open; longest held: idle %d ms, slowloris %d ms",
		baseline, maxFDs, idle.dialed.Load(), idle.open.Load(), keepAlive.dialed.Load(), keepAlive.open.Load(),
		keepAlive.answered.Load(), keepAlive.closedAfterAns.Load(), slow.dialed.Load(), slow.open.Load(), idle.longest.Load(), slow.longest.Load())
	for _, a := range []string{"w1", "w2", "w3"} {
		got := len(eventsNamed(team, "checkpoint_received", a)) - before[a]
		t.Logf("%s: %d checkpoints saved in 10 s under the flood, %d in 5 s before it", a, got, calm[a])
		if got < calm[a] {
			t.Errorf("%s: %d checkpoints saved in 10 s under the flood, %d in the 5 s before it: want at least as many", a, got, calm[a])
		}
	}
	if n := page.out.count("WARNING: checkpoint of"); n > 0 {
		t.Errorf("%d checkpoints not saved under the flood:\n%s", n, page.out.dump())
	}
	if psOK != psTried {
		t.Errorf("warden ps answered %d of %d times under the flood", psOK, psTried)
	}
	if budget := baseline + 128 + 16; maxFDs > budget { // 16: the control socket's clients, the logs
		t.Errorf("warden held %d descriptors under the flood, more than %d (%d before + the page's budget of 128 + 16)", maxFDs, budget, baseline)
	}
	if keepAlive.answered.Load() == 0 || keepAlive.closedAfterAns.Load() < keepAlive.answered.Load()*9/10 {
		t.Errorf("of %d connections answered 401, %d were closed within 1 s: want every one", keepAlive.answered.Load(), keepAlive.closedAfterAns.Load())
	}
	// Measured from the dial, which can wait in the listener's backlog
	// while the page is at its connection cap; the page's clock starts at
	// accept (header timeout 5 s, whole request 10 s).
	if ms := slow.longest.Load(); ms > 12000 {
		t.Errorf("a slowloris connection was held %d ms: want it closed within the page's read timeout (10 s) of its accept", ms)
	}

	// warden stop, with the flood still on.
	res, errOut, code := wardenCmdWithin(60*time.Second, "stop", team)
	if code != 0 || !strings.HasSuffix(res, "warden is done\n") {
		t.Errorf("warden stop under the flood: exit %d: %s%s", code, res, errOut)
	}
	done := make(chan struct{})
	go func() {
		if err := page.cmd.Wait(); exitCode(err) != 130 {
			t.Errorf("warden run after warden stop: exit %d, want 130", exitCode(err))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Errorf("warden did not exit within 30 s of warden stop under the flood")
		page.stop()
	}
	if page.out.count("CHECKPOINT COMPLETE") != 1 {
		t.Errorf("no CHECKPOINT COMPLETE after warden stop under the flood:\n%s", page.out.dump())
	}
}
