package notify

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/wardenhq/warden/runner"
)

// waitDelay bounds how long a run waits for its stderr to close after the
// command exited and what it started was killed: a process that shed its
// tag (an exec with a clean environment) may still hold it.
const waitDelay = time.Second

// killWait bounds how long a run's end keeps killing what the command
// started (KillTagged) until none of it is alive.
const killWait = 2 * time.Second

// stderrTail is how much of a command's stderr a failure log shows.
const stderrTail = 2048

// result is what one run did.
type result struct {
	job
	started  bool
	pid      int   // also the process group id; 0 when it did not start
	err      error // nil when the command exited 0
	timedOut bool  // killed at the rule's timeout
	aborted  bool  // killed by Close
	stderr   string
}

// run runs the job's command to its end: exit, timeout or abort. At the end,
// in every case, its process group is killed, and every process carrying the
// run's runner tag — what the command started, in its group or escaped from
// it with setsid — so nothing it started outlives the run.
func (n *Notifier) run(j job) result {
	r := &n.rules[j.rule]
	res := result{job: j}
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	tag := runner.NewTag()
	cmd.Env = append(n.runEnv(j), runner.RunnerTagEnv+"="+tag)
	cmd.Stdin = bytes.NewReader(payload(j.ev.JSON, j.suppressed))
	tail := &tailBuffer{max: stderrTail}
	cmd.Stderr = tail // stdout goes to /dev/null
	runner.InGroup(cmd, syscall.SIGKILL, waitDelay)
	n.mu.Lock()
	boxOf := n.box
	n.mu.Unlock()
	var box runner.CommandBox
	if boxOf != nil {
		box = boxOf("notify")
	}
	start := cmd.Start
	if box != nil {
		start = func() error { return box.Start(cmd) }
	}
	if err := start(); err != nil {
		if box != nil {
			_ = box.Close()
		}
		res.err = fmt.Errorf("start: %w", err)
		return res
	}
	res.started, res.pid = true, cmd.Process.Pid
	exited, wait := watch(cmd)
	select {
	case <-exited:
	case <-n.clk.After(r.Timeout):
		res.timedOut = true
	case <-n.abort:
		res.aborted = true
	}
	runner.KillGroup(cmd) // the leader is not reaped yet: the id is still its group's
	if box != nil {
		// Everything it started dies with its box: escapees that shed the
		// tag or were reparented to init too.
		if err := box.Close(); err != nil {
			n.log.Warn("notify command: its box not removed", "rule", r.Pos.String(), "error", err)
		}
	}
	if killed, err := runner.KillTagged(tag, res.pid, killWait); err != nil {
		n.log.Warn("notify command: what it started could not all be killed", "rule", r.Pos.String(), "error", err)
	} else if len(killed) > 1 {
		n.log.Debug("notify command: killed what it left", "rule", r.Pos.String(), "processes", len(killed)-1)
	}
	<-exited
	res.err = wait()
	reapGroup(res.pid)
	res.stderr = tail.String()
	if errors.Is(res.err, exec.ErrWaitDelay) {
		res.err = errors.New("a process left by the command kept its stderr open")
	}
	return res
}

// finish counts and logs a run's result.
func (n *Notifier) finish(res result) {
	r := &n.rules[res.rule]
	failed := res.err != nil || res.timedOut || res.aborted
	n.mu.Lock()
	if res.started {
		n.stats.Started++
	}
	if failed {
		n.stats.Failed++
	}
	if res.timedOut {
		n.stats.TimedOut++
	}
	afterRun := n.afterRun
	n.mu.Unlock()

	// Never the environment or the argv past argv[0]: either may carry a
	// secret (a token, a webhook URL).
	kv := []any{"rule", r.Pos.String(), "command", r.Command[0], "event", res.ev.Name}
	if res.ev.Agent != "" {
		kv = append(kv, "agent", res.ev.Agent)
	}
	if res.ev.Task != "" {
		kv = append(kv, "task", res.ev.Task)
	}
	switch {
	case res.timedOut:
		n.log.Warn("notify command timed out; its process group was killed", append(kv, "timeout", r.Timeout, "stderr", res.stderr)...)
	case res.aborted:
		n.log.Warn("notify command killed at close", append(kv, "stderr", res.stderr)...)
	case !res.started:
		n.log.Warn("notify command did not start", append(kv, "error", res.err)...)
	case res.err != nil:
		n.log.Warn("notify command failed", append(kv, "error", res.err, "stderr", res.stderr)...)
	default:
		n.log.Debug("notify command done", append(kv, "suppressed", res.suppressed)...)
	}
	if afterRun != nil {
		afterRun(res)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

// String returns the tail, trimmed, marked with "…" when its start was cut.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(bytes.TrimSpace(t.buf))
	if t.lost && s != "" {
		s = "…" + s
	}
	return s
}
