//go:build e2e

package notify

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/config"
)

// hangScript writes to stderr, starts a grandchild, writes "LEADER
// GRANDCHILD" pids to $0 and waits for ever.
const hangScript = `echo hanging >&2; sleep 300 & echo "$$ $!" > "$0.tmp"; mv "$0.tmp" "$0"; wait`

// hangPids reads the two pids hangScript wrote.
func hangPids(t *testing.T, path string) (leader, grandchild int) {
	t.Helper()
	f := strings.Fields(waitFile(t, path))
	if len(f) != 2 {
		t.Fatalf("pid file %s: %q", path, f)
	}
	leader, _ = strconv.Atoi(f[0])
	grandchild, _ = strconv.Atoi(f[1])
	return leader, grandchild
}

// alive reports whether pid is a live, non-zombie process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// gone waits up to 2 s (SIGKILL takes effect, not at once) for group pgid
// and process pid (unless 0) to be gone.
func gone(pgid, pid int) bool {
	deadline := time.Now().Add(2 * time.Second)
	for {
		if proctest.GroupGone(pgid) && (pid == 0 || !alive(pid)) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestTimeoutKillsGroup: a command that hangs is killed at its timeout (on
// the injected clock), grandchild included; the notifier goes on.
func TestTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	clk := clock.NewFake(t0)
	r := rule([]string{"agent_stalled"}, []string{"sh", "-c", hangScript, pidFile})
	r.Timeout = 30 * time.Second
	h := newHarness(t, []config.Notify{r}, clk, defaultWorkers, defaultQueue)
	h.n.Notify(event("agent_stalled", "w1", "T1"))
	leader, grandchild := hangPids(t, pidFile)
	for clk.Waiters() == 0 { // the run waits on its timeout
		time.Sleep(time.Millisecond)
	}
	clk.Advance(29 * time.Second)
	if !alive(leader) || !alive(grandchild) {
		t.Fatalf("killed before its timeout")
	}
	clk.Advance(time.Second)
	res := h.next(t)
	if !res.timedOut || res.pid != leader {
		t.Fatalf("result: timedOut %v, pid %d (leader %d), err %v", res.timedOut, res.pid, leader, res.err)
	}
	if !gone(leader, grandchild) {
		t.Errorf("group %d or grandchild %d still there", leader, grandchild)
	}
	log := h.log.String()
	if !strings.Contains(log, "notify command timed out") || !strings.Contains(log, "stderr=hanging") {
		t.Errorf("log lacks the timeout and the stderr tail:\n%s", log)
	}
	if s := h.n.Stats(); s.TimedOut != 1 || s.Failed != 1 || s.Started != 1 {
		t.Errorf("stats = %+v", s)
	}
}

// TestFailureLoggedAndGoesOn: a non-zero exit is logged with the stderr tail
// but neither the environment nor the argv past argv[0]; the next
// notification still runs.
func TestFailureLoggedAndGoesOn(t *testing.T) {
	t.Setenv("WARDEN_TEST_SECRET", "env-secret-value")
	r := rule([]string{"task_failed"}, []string{"sh", "-c", `echo "boom: $1" >&2; exit 3`, "sh", "argv-secret-token"})
	r.MinInterval = 0
	h := newHarness(t, []config.Notify{r}, clock.Real{}, defaultWorkers, defaultQueue)
	h.n.Notify(event("task_failed", "w1", "T1"))
	h.n.Notify(event("task_failed", "w1", "T2"))
	for range 2 {
		res := h.next(t)
		var ee interface{ ExitCode() int }
		if !errors.As(res.err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("run %s: err %v, want exit status 3", res.ev.Task, res.err)
		}
	}
	log := h.log.String()
	if n := strings.Count(log, "notify command failed"); n != 2 {
		t.Errorf("%d failures logged, want 2:\n%s", n, log)
	}
	for _, want := range []string{`stderr="boom: argv-secret-token"`, "exit status 3", "rule=team.toml:12:1", "command=sh", "task=T2"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "env-secret-value") || strings.Contains(strings.ReplaceAll(log, `stderr="boom: argv-secret-token"`, ""), "argv-secret-token") {
		t.Errorf("log shows the environment or the argv:\n%s", log)
	}
	if s := h.n.Stats(); s.Started != 2 || s.Failed != 2 {
		t.Errorf("stats = %+v", s)
	}
}

// TestCommandNotFound: a command that cannot start is logged, not fatal.
func TestCommandNotFound(t *testing.T) {
	dir := t.TempDir()
	rules := []config.Notify{
		rule([]string{"team_done"}, []string{"warden-test-no-such-command"}),
		rule([]string{"team_done"}, []string{filepath.Join(dir, "absent")}),
		rule([]string{"team_done"}, helperCommand(t, "record", dir)),
	}
	h := newHarness(t, rules, clock.Real{}, 1, 8)
	h.n.Notify(event("team_done", "", "done"))
	var failed int
	for range 3 {
		if res := h.next(t); !res.started {
			failed++
			if !errors.Is(res.err, os.ErrNotExist) && !strings.Contains(res.err.Error(), "not found") {
				t.Errorf("err = %v", res.err)
			}
		}
	}
	if failed != 2 {
		t.Errorf("%d runs did not start, want 2", failed)
	}
	readRecord(t, dir, "done") // the third rule ran
	if n := strings.Count(h.log.String(), "notify command did not start"); n != 2 {
		t.Errorf("%d start failures logged, want 2:\n%s", n, h.log)
	}
	if s := h.n.Stats(); s.Started != 1 || s.Failed != 2 {
		t.Errorf("stats = %+v", s)
	}
}

// TestChildHoldingStderr: a command that exits leaving a child with its
// stderr open ends at once: the child, in its group, is killed.
func TestChildHoldingStderr(t *testing.T) {
	r := rule([]string{"agent_waiting"}, []string{"sh", "-c", "sleep 300 & exit 0"})
	r.Timeout = time.Hour
	h := newHarness(t, []config.Notify{r}, clock.Real{}, defaultWorkers, defaultQueue)
	h.n.Notify(event("agent_waiting", "w1", "T1"))
	res := h.next(t)
	if res.err != nil || res.timedOut {
		t.Fatalf("run: err %v, timedOut %v (want a clean exit)", res.err, res.timedOut)
	}
	if !gone(res.pid, 0) {
		t.Errorf("group %d still there", res.pid)
	}
}

// TestEscapedChildrenAreKilled: what a notify command started outside its
// process group (setsid; a double fork whose middle process is gone) is
// killed when the run ends — whether the command exited, holding stderr
// through the escapee or not, or hung to its timeout — and the run does not
// wait on it. Before, the escapee outlived the run (and warden).
func TestEscapedChildrenAreKilled(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"setsid, holding stderr", `setsid sh -c 'echo "$$" > "$0"; exec sleep 300' "$0" & while [ ! -s "$0" ]; do sleep 0.01; done`},
		{"setsid, output elsewhere", `setsid sh -c 'echo "$$" > "$0"; exec sleep 300' "$0" >/dev/null 2>&1 </dev/null & while [ ! -s "$0" ]; do sleep 0.01; done`},
		{"double fork", `(setsid sh -c 'echo "$$" > "$0"; exec sleep 300' "$0" >/dev/null 2>&1 &); while [ ! -s "$0" ]; do sleep 0.01; done`},
		{"setsid, then hangs", `setsid sh -c 'echo "$$" > "$0"; exec sleep 300' "$0" >/dev/null 2>&1 & sleep 300`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer proctest.AssertNone(t)
			marker := filepath.Join(t.TempDir(), "escaped")
			r := rule([]string{"agent_waiting"}, []string{"sh", "-c", tc.script, marker})
			r.Timeout = 2 * time.Second
			h := newHarness(t, []config.Notify{r}, clock.Real{}, defaultWorkers, defaultQueue)
			start := time.Now()
			h.n.Notify(event("agent_waiting", "w1", "T1"))
			res := h.next(t)
			took := time.Since(start)
			escapee, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, marker)))
			if escapee == 0 || alive(escapee) {
				t.Fatalf("the escaped child %d outlived the run (%s)", escapee, took)
			}
			hangs := strings.HasSuffix(tc.script, "sleep 300")
			if hangs != res.timedOut || !hangs && res.err != nil {
				t.Errorf("run: timedOut %v, err %v", res.timedOut, res.err)
			}
			if limit := map[bool]time.Duration{false: time.Second, true: r.Timeout + time.Second}[hangs]; took > limit {
				t.Errorf("the run took %s, more than %s: it waited on the escapee", took, limit)
			}
			if !gone(res.pid, 0) {
				t.Errorf("group %d still there", res.pid)
			}
		})
	}
}
