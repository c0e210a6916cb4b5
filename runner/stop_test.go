//go:build e2e

package runner

import (
	"context"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"golang.org/x/sys/unix"
)

var grandchildRE = regexp.MustCompile(`grandchild (\d+)`)

// grandchildPid waits for the fake agent's "grandchild PID" line.
func grandchildPid(t *testing.T, c *capture) int {
	t.Helper()
	c.waitUntil(t, "grandchild pid", func(out []byte) bool { return grandchildRE.Match(out) })
	pid, _ := strconv.Atoi(grandchildRE.FindStringSubmatch(c.String())[1])
	return pid
}

// readyCount waits until "ready" was printed n times.
func readyCount(t *testing.T, c *capture, n int) {
	t.Helper()
	c.waitUntil(t, strconv.Itoa(n)+" ready lines", func(out []byte) bool {
		return len(regexp.MustCompile(`ready`).FindAll(out, -1)) >= n
	})
}

func stopWithin(t *testing.T, p *Process, grace time.Duration) (Exit, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	t0 := time.Now()
	exit := p.Stop(ctx)
	return exit, time.Since(t0)
}

func TestStopTerminatesPolitely(t *testing.T) {
	p, c := start(t, fakeConfig("idle"))
	c.waitFor(t, "ready")
	exit, took := stopWithin(t, p, 10*time.Second)
	if exit.Signal != syscall.SIGTERM {
		t.Errorf("exit %v, want signal: terminated", exit)
	}
	if took > 5*time.Second {
		t.Errorf("Stop of a child that obeys SIGTERM took %v", took)
	}
	if p.Alive() || !proctest.GroupGone(p.Pid()) {
		t.Error("agent still alive after Stop")
	}
}

func TestStopKillsChildIgnoringTermAtDeadline(t *testing.T) {
	p, c := start(t, fakeConfig("ignore"))
	c.waitFor(t, "ready")
	const grace = 400 * time.Millisecond
	exit, took := stopWithin(t, p, grace)
	if exit.Signal != syscall.SIGKILL {
		t.Errorf("exit %v, want signal: killed", exit)
	}
	if took < grace {
		t.Errorf("Stop returned after %v, before the %v deadline", took, grace)
	}
	if took > grace+2*time.Second {
		t.Errorf("Stop took %v, long after the %v deadline", took, grace)
	}
	if p.Alive() {
		t.Error("Alive after Stop")
	}
}

func TestStopTakesGrandchildrenInGroup(t *testing.T) {
	for _, mode := range []string{"grandchild:ignore:idle", "grandchild:idle:idle"} {
		t.Run(mode, func(t *testing.T) {
			p, c := start(t, fakeConfig(mode))
			gc := grandchildPid(t, c)
			readyCount(t, c, 2)
			exit, _ := stopWithin(t, p, 300*time.Millisecond)
			if exit.Signal == 0 {
				t.Errorf("exit %v, want a signal", exit)
			}
			if !proctest.GroupGone(p.Pid()) {
				t.Errorf("group %d not empty after Stop", p.Pid())
			}
			waitReaped(t, gc)
			proctest.AssertNone(t)
		})
	}
}

func TestGrandchildOutlivingLeaderIsStopped(t *testing.T) {
	p, c := start(t, fakeConfig("grandchild:ignore:exit"))
	gc := grandchildPid(t, c)
	exit := waitDone(t, p) // the grandchild still holds the terminal: the drain is bounded
	if !exit.Success() {
		t.Errorf("leader exit %v", exit)
	}
	if !p.Alive() {
		t.Fatal("Alive false while the grandchild runs")
	}
	stopWithin(t, p, 300*time.Millisecond)
	if p.Alive() || !proctest.GroupGone(p.Pid()) {
		t.Error("grandchild survived Stop")
	}
	waitReaped(t, gc)
}

func TestStopTakesEscapedGrandchild(t *testing.T) {
	p, c := start(t, fakeConfig("escape:ignore:idle"))
	gc := grandchildPid(t, c)
	readyCount(t, c, 2)
	if sid, _ := unix.Getsid(gc); sid == p.Pid() {
		t.Fatalf("grandchild %d did not leave the session", gc)
	}
	const grace = 300 * time.Millisecond
	_, took := stopWithin(t, p, grace)
	if took > grace+3*time.Second {
		t.Errorf("Stop took %v: it waited on the terminal the escapee holds", took)
	}
	if p.Alive() {
		t.Error("Alive after Stop")
	}
	proctest.AssertNone(t)
	waitReaped(t, gc)
}

func TestEscapeeOrphanedToUsIsFoundAndKilled(t *testing.T) {
	p, c := start(t, fakeConfig("escape:ignore:exit"))
	gc := grandchildPid(t, c)
	waitDone(t, p) // must not wait for the escapee to close the terminal
	if !p.Alive() {
		t.Fatalf("Alive false while escaped grandchild %d runs", gc)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if p.Alive() {
		t.Error("Alive after Kill")
	}
	if err := p.Kill(); err != nil {
		t.Errorf("second Kill: %v", err)
	}
	proctest.AssertNone(t)
	waitReaped(t, gc)
}

// waitReaped waits (≤ 2 s) until pid is gone from /proc: dead and reaped,
// not left as a zombie.
func waitReaped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for stateOf(pid) != 0 {
		if time.Now().After(deadline) {
			t.Errorf("process %d not reaped (state %c)", pid, stateOf(pid))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func stateOf(pid int) byte {
	var buf [1024]byte
	pi, ok := readStat(pid, buf[:])
	if !ok {
		return 0
	}
	return pi.state
}
