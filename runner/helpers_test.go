//go:build e2e

package runner

import (
	"bytes"
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

// capture is an Output that lets a test wait for text to appear.
type capture struct {
	mu  sync.Mutex
	buf []byte
	ch  chan struct{} // closed and replaced on every Write
}

func newCapture() *capture { return &capture{ch: make(chan struct{})} }

func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.buf = append(c.buf, b...)
	close(c.ch)
	c.ch = make(chan struct{})
	c.mu.Unlock()
	return len(b), nil
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}

// waitUntil waits until cond holds for the output so far, failing the test
// after 10 s.
func (c *capture) waitUntil(t *testing.T, what string, cond func(out []byte) bool) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		ok, ch := cond(c.buf), c.ch
		out := string(c.buf)
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-timeout.C:
			t.Fatalf("timed out waiting for %s; output so far: %q", what, out)
		}
	}
}

func (c *capture) waitFor(t *testing.T, sub string) {
	t.Helper()
	c.waitUntil(t, "output "+sub, func(out []byte) bool { return bytes.Contains(out, []byte(sub)) })
}

// fakeConfig runs the fake agent in mode.
func fakeConfig(mode string) Config {
	return Config{Name: "fake-" + mode, Argv: fakeagent.Command(mode), Env: fakeagent.Env(mode)}
}

// start starts cfg with a capture as Output (unless cfg has one), and makes
// sure at the end of the test that nothing it started is left.
func start(t *testing.T, cfg Config) (*Process, *capture) {
	t.Helper()
	t.Cleanup(func() { proctest.AssertNone(t) })
	c := newCapture()
	if cfg.Output == nil {
		cfg.Output = c
	}
	p, err := Start(testLogger, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		p.Stop(ctx)
		if p.Alive() {
			t.Errorf("pid %d: Alive after Stop", p.Pid())
		}
	})
	return p, c
}

// waitDone waits for Done, failing after 10 s.
func waitDone(t *testing.T, p *Process) Exit {
	t.Helper()
	return waitDoneWithin(t, p, 10*time.Second)
}

// waitDoneWithin is waitDone for a process with more to do (a flood of
// tens of MiB through the pty takes seconds under -race on a busy machine).
func waitDoneWithin(t *testing.T, p *Process, d time.Duration) Exit {
	t.Helper()
	select {
	case <-p.Done():
		return p.Exit()
	case <-time.After(d):
		t.Fatalf("pid %d: not done after %v", p.Pid(), d)
		return Exit{}
	}
}
