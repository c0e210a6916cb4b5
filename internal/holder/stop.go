package holder

import (
	"errors"
	"syscall"
	"time"

	"github.com/wardenhq/warden/runner"
)

// killTaggedWait bounds KillTagged's sweeps for what an agent left.
const killTaggedWait = 2 * time.Second

// terminate ends everything of a: SIGTERM (and SIGCONT, for a stopped
// process) to its process group, a wait of up to timeout for the leader's
// exit and the group to empty, then SIGKILL to the group and to every
// process carrying the agent's runner tag (runner.KillTagged: escapees
// that left the group or session too). It returns once the leader's
// status is in, or after a bounded wait that failed.
func (h *Holder) terminate(a *agent, timeout time.Duration) {
	if a.ended.Load() {
		// Reaped and what it left ended: its pid, and so its group id, may
		// be another process's by now.
		return
	}
	if !groupGone(a.pid) {
		_ = syscall.Kill(-a.pid, syscall.SIGTERM)
		_ = syscall.Kill(-a.pid, syscall.SIGCONT)
	}
	deadline := time.Now().Add(timeout)
	graceful := waitUntil(deadline, func() bool { return a.isReaped() && groupGone(a.pid) })
	if !graceful {
		// While the leader is unreaped, or a member is left, the group's id
		// is still the agent's.
		_ = syscall.Kill(-a.pid, syscall.SIGKILL)
	}
	except := 0
	if !a.isReaped() {
		except = a.pid // its status is the reaper's to take
	}
	killed, err := runner.KillTagged(a.tag, except, killTaggedWait)
	if err != nil {
		a.log.Error("processes the agent left are still alive", "error", err)
	}
	h.addStrays(killed) // those KillTagged could not reap yet
	if !waitUntil(time.Now().Add(killTaggedWait), a.isReaped) {
		a.log.Error("the agent's leader was not reaped after SIGKILL")
	}
	if a.isReaped() {
		a.ended.Store(true)
	}
	if !graceful || len(killed) > 0 {
		a.log.Info("agent's processes killed", "graceful", graceful, "killed", len(killed))
	}
}

// groupGone reports whether process group pgid has no process left
// (zombies not yet reaped count, until the reaper takes them).
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// waitUntil polls cond with a growing pause until it holds (true) or the
// deadline passes (false).
func waitUntil(deadline time.Time, cond func() bool) bool {
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}
