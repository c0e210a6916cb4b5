//go:build !e2e

package webpage

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// serveLimited starts the page with limits beside a control socket of a
// fake team whose hub the test feeds.
func serveLimited(t *testing.T, l Limits) (*Server, *control.Hub, func()) {
	t.Helper()
	root := t.TempDir()
	hub := control.NewHub(10)
	ctl, err := control.Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), fakeTeam{}, hub)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(Options{Addr: "127.0.0.1:0", Token: testToken, Client: control.NewClient(root), Log: hclog.NewNullLogger(), Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx); close(done) }()
	return srv, hub, func() { cancel(); <-done; ctl.Close() }
}

// closedWithin reads c until the server closes it; it returns what came and
// whether that happened within d.
func closedWithin(c net.Conn, d time.Duration) (string, bool) {
	c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	var ne net.Error
	return string(b), err == nil || !(errorAs(err, &ne) && ne.Timeout())
}

func errorAs(err error, ne *net.Error) bool {
	e, ok := err.(net.Error)
	if ok {
		*ne = e
	}
	return ok
}

// The page's budget is a share of the descriptor limit: an eighth, between
// 16 and 256 connections, a quarter of them (16 at most) event streams.
func TestLimitsAreAShareOfTheDescriptorLimit(t *testing.T) {
	for _, c := range []struct {
		nofile                  uint64
		conns, perHost, streams int
	}{{1024, 128, 64, 16}, {20000, 256, 128, 16}, {1 << 20, 256, 128, 16}, {64, 16, 8, 4}, {0, 256, 128, 16}} {
		l := limitsFor(c.nofile)
		if l.MaxConns != c.conns || l.MaxConnsPerHost != c.perHost || l.MaxStreams != c.streams {
			t.Errorf("RLIMIT_NOFILE %d: %d conns, %d per host, %d streams; want %d, %d, %d", c.nofile, l.MaxConns, l.MaxConnsPerHost, l.MaxStreams, c.conns, c.perHost, c.streams)
		}
	}
	if l := DefaultLimits(); l.ReadHeaderTimeout == 0 || l.ReadTimeout == 0 || l.WriteTimeout == 0 || l.IdleTimeout == 0 || l.StreamWriteTimeout == 0 {
		t.Errorf("a timeout is missing: %+v", l)
	}
}

// Past MaxConns (and MaxConnsPerHost for one address), a connection is
// answered 503 and closed at once; the ones within the limit that send no
// header, or half of one, are closed at the header timeout, and then their
// slots serve again.
func TestConnectionsPastTheLimitAreClosedAtOnce(t *testing.T) {
	srv, _, stop := serveLimited(t, Limits{MaxConns: 8, MaxConnsPerHost: 6, ReadHeaderTimeout: 2 * time.Second})
	defer stop()
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Second}
		c, err := d.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	type conn struct {
		c    net.Conn
		from string
	}
	var all []conn
	for _, from := range []string{"127.0.0.1", "127.0.0.2"} {
		for i := range 10 {
			c := dial(from)
			if i%2 == 1 {
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ") // a slowloris
			}
			all = append(all, conn{c, from})
			time.Sleep(5 * time.Millisecond) // accepted in this order
		}
	}
	refusedFrom := map[string]int{}
	outs := make([]string, len(all))
	closed := make([]bool, len(all))
	var wg sync.WaitGroup
	for i, c := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], closed[i] = closedWithin(c.c, 300*time.Millisecond)
		}()
	}
	wg.Wait()
	for i, c := range all {
		if !closed[i] {
			held = append(held, c.c)
			continue
		}
		refusedFrom[c.from]++
		if !strings.HasPrefix(outs[i], "HTTP/1.1 503") {
			t.Errorf("a connection past the limit got %q, want a 503", outs[i])
		}
		c.c.Close()
	}
	if len(held) != 8 || refusedFrom["127.0.0.1"] != 4 || refusedFrom["127.0.0.2"] != 8 {
		t.Errorf("%d held, refused by address %v: want 6 of 127.0.0.1's (its share), 2 of 127.0.0.2's (the limit)", len(held), refusedFrom)
	}
	// The header timeout (2 s from each accept) closes them: within 3 s
	// of the limit. (A 2 s bound measured here failed at 2.04 s on a
	// loaded machine: the timeout's own timer, not a hold.)
	for _, c := range held {
		if _, closed := closedWithin(c, 3*time.Second); !closed {
			t.Errorf("a connection without a header was held past the header timeout")
		}
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if open, _ := srv.ln.counts(); open == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%d slots still taken after every connection was closed", open)
		}
	}
	resp, err := http.Get("http://" + srv.Addr() + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz once the slots were free: %v %v", resp, err)
	}
	resp.Body.Close()
}

// An event stream outlives the server's read, write and idle timeouts (it
// sets a deadline per write), while a viewer that stops reading is dropped
// within the stream's write timeout and its slot serves the next; past
// MaxStreams a viewer is told 503.
func TestStreamOutlivesTheTimeoutsAndAStalledOneIsDropped(t *testing.T) {
	srv, hub, stop := serveLimited(t, Limits{MaxStreams: 1, ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 300 * time.Millisecond,
		WriteTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, StreamWriteTimeout: 500 * time.Millisecond})
	defer stop()
	base := "http://" + srv.Addr()
	resp, err := http.Get(base + "/api/events?token=" + testToken)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/api/events: %v %v", resp, err)
	}
	got := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: {\"n\":") {
				got <- sc.Text()
			}
		}
		close(got)
	}()
	if r2, _ := get(t, base+"/api/events?token="+testToken, nil); r2.StatusCode != http.StatusServiceUnavailable || r2.Header.Get("Retry-After") == "" {
		t.Errorf("a second viewer past MaxStreams 1: %s", r2.Status)
	}
	for i := range 15 { // 3 s: ten times every timeout of the server
		hub.Event([]byte(fmt.Sprintf(`{"n":%d}`, i)))
		time.Sleep(200 * time.Millisecond)
	}
	n := 0
	for len(got) > 0 {
		<-got
		n++
	}
	if n != 15 {
		t.Errorf("the stream delivered %d of 15 events sent over 3 s: cut by a timeout?", n)
	}
	resp.Body.Close()

	// A viewer that reads nothing while events pour in.
	c, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4 << 10)
	for deadline := time.Now().Add(2 * time.Second); len(srv.streams) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first viewer's stream was not given back when it hung up")
		}
	}
	if _, err := fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", testToken); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if len(srv.streams) == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the stalled viewer's stream never started")
		}
	}
	big := `{"n":-1,"pad":"` + strings.Repeat("x", 60<<10) + `"}`
	t0 := time.Now()
	for len(srv.streams) == 1 && time.Since(t0) < 10*time.Second {
		hub.Event([]byte(big))
		time.Sleep(5 * time.Millisecond)
	}
	if took := time.Since(t0); len(srv.streams) != 0 {
		t.Fatalf("a viewer that reads nothing still held its stream after %s", took)
	} else {
		t.Logf("a viewer that reads nothing was dropped %s after the events began to pour", took.Round(time.Millisecond))
	}
	if r3, _ := get(t, base+"/api/ps?token="+testToken, nil); r3.StatusCode != 200 {
		t.Errorf("/api/ps after the stalled viewer was dropped: %s", r3.Status)
	}
}

// countingTeam counts the team's PS calls.
type countingTeam struct {
	fakeTeam
	calls *atomic.Int64
}

func (c countingTeam) PS() control.PS { c.calls.Add(1); return c.fakeTeam.PS() }

// Clients without the token that ask /healthz as fast as they can cost the
// control socket one ps a second, never its slots: `warden ps` answers all
// along.
func TestHealthzFloodCostsOnePSASecond(t *testing.T) {
	root := t.TempDir()
	var calls atomic.Int64
	ctl, err := control.Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), countingTeam{calls: &calls}, control.NewHub(10))
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	srv, err := Listen(Options{Addr: "127.0.0.1:0", Token: testToken, Client: control.NewClient(root), Log: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	flood, stopFlood := context.WithTimeout(context.Background(), 3*time.Second)
	defer stopFlood()
	var wg sync.WaitGroup
	var probes, ok atomic.Int64
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for flood.Err() == nil {
				resp, err := c.Get("http://" + srv.Addr() + "/healthz")
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				probes.Add(1)
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				}
			}
		}()
	}
	direct, failed := 0, 0
	for flood.Err() == nil {
		if _, err := control.NewClient(root).PS(); err != nil {
			failed++
			t.Logf("warden ps under the /healthz flood: %v", err)
		}
		direct++
		calls.Add(-1) // not the page's
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	pageCalls := calls.Load()
	t.Logf("%d probes in 3 s (%d answered 200), %d ps calls from the page; %d of %d direct ps failed", probes.Load(), ok.Load(), pageCalls, failed, direct)
	if failed > 0 {
		t.Errorf("%d of %d warden ps failed under the /healthz flood", failed, direct)
	}
	if pageCalls > 5 {
		t.Errorf("the page called ps %d times for %d probes in 3 s: want about one a second", pageCalls, probes.Load())
	}
	if ok.Load() < probes.Load()*9/10 {
		t.Errorf("%d of %d probes answered 200", ok.Load(), probes.Load())
	}
}
