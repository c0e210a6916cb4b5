//go:build e2e

package runner

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// Starts run in parallel (the reaper's registry is not locked across fork),
// so a child may exit before its pid is registered, while it is, or after:
// whichever of the start's own check and the reaper's SIGCHLD pass sees the
// exit, each process gets its own status and all of its output. 100 starts
// at once, three rounds, with GOMAXPROCS as it is and at 1.
func TestConcurrentStartsWithFastExits(t *testing.T) {
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			defer proctest.AssertNone(t)
			for round := range 3 {
				var wg sync.WaitGroup
				for i := range 100 {
					wg.Go(func() { startFastExit(t, round, i) })
				}
				wg.Wait()
			}
		})
	}
}

// startFastExit starts a shell that prints one line and exits with a code
// of its own, and checks both.
func startFastExit(t *testing.T, round, i int) {
	code := (round*100 + i) % 120
	want := fmt.Sprintf("out %d.%d", round, i)
	c := newCapture()
	p, err := Start(testLogger, Config{Name: "fast", Env: fakeagent.Env("sh"), Output: c,
		Argv: []string{"/bin/sh", "-c", fmt.Sprintf("echo '%s'; exit %d", want, code)}})
	if err != nil {
		t.Errorf("start %d.%d: %v", round, i, err)
		return
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		// An exit that was missed: the shell is a zombie nobody reaps
		// (Stop would wait for it for ever).
		t.Errorf("pid %d (%d.%d): not done after 10 s", p.Pid(), round, i)
		return
	}
	if exit := p.Exit(); exit.Err != nil || exit.Code != code {
		t.Errorf("pid %d (%d.%d): %v, want exit code %d", p.Pid(), round, i, exit, code)
	}
	if out := c.String(); !strings.Contains(out, want+"\r\n") {
		t.Errorf("pid %d (%d.%d): output %q, want %q", p.Pid(), round, i, out, want)
	}
	if p.Alive() {
		t.Errorf("pid %d (%d.%d): alive after exit", p.Pid(), round, i)
	}
}
