package runner

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// killRounds bounds how often Kill sweeps for survivors (a process may fork
// between a scan and the kill).
const killRounds = 8

// Kill sends SIGKILL to the process group and to every descendant and
// escapee a sweep finds, sweeping again until nothing of it is alive. It is
// idempotent; it does not wait for Done.
func (p *Process) Kill() error {
	if !p.killed.Swap(true) {
		p.logger.Info("killing process group and descendants", "pgid", p.pid, "signal", "SIGKILL")
	}
	if !p.isReaped() {
		// While the leader is unreaped its pid cannot be reused, so the group
		// id surely is ours.
		if err := syscall.Kill(-p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill group %d of %s: %w", p.pid, p.name, err)
		}
	}
	wait := time.Millisecond
	for round := 0; round < killRounds; round++ {
		procs, err := p.sweep()
		if err != nil {
			return fmt.Errorf("kill %s: %w", p.name, err)
		}
		live := 0
		for _, pi := range procs {
			if pi.zombie() {
				continue
			}
			live++
			if err := syscall.Kill(pi.pid, syscall.SIGKILL); err == nil {
				p.logger.Debug("killed process", "pid", pi.pid, "pgid", pi.pgid, "sid", pi.sid)
			}
		}
		if live == 0 {
			if len(procs) == 0 && p.isReaped() {
				theReaperForget(p)
			}
			return nil
		}
		// SIGKILL is delivered asynchronously; give the kernel a moment
		// before checking again.
		time.Sleep(wait)
		wait = min(wait*2, 50*time.Millisecond)
	}
	return fmt.Errorf("kill %s: processes still alive after %d sweeps", p.name, killRounds)
}

// Alive reports whether any process of the agent's group, session or
// descendants (escapees included) still exists. Zombies do not count.
func (p *Process) Alive() bool {
	if !p.isReaped() {
		var buf [1024]byte
		if pi, ok := readStat(p.pid, buf[:]); ok && !pi.zombie() {
			return true
		}
	}
	procs, err := p.sweep()
	if err != nil {
		p.logger.Warn("cannot tell whether processes are alive", "error", err)
		return true
	}
	for _, pi := range procs {
		if !pi.zombie() {
			return true
		}
	}
	if len(procs) == 0 && p.isReaped() {
		theReaperForget(p)
	}
	return false
}

// Stop sends SIGTERM (and SIGCONT) to the group, waits until the group is
// empty or ctx is done, then kills whatever is left of the agent (group,
// descendants, escapees) and waits for Done.
func (p *Process) Stop(ctx context.Context) Exit {
	start := time.Now()
	if err := p.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.logger.Warn("terminate failed", "error", err)
	}
	graceful := p.waitGroupGone(ctx)
	if err := p.Kill(); err != nil {
		p.logger.Error("kill failed", "error", err)
	}
	<-p.done
	p.logger.Info("agent stopped", "pid", p.pid, "graceful", graceful, "exit", p.exit.String(),
		"duration", time.Since(start).Round(time.Millisecond))
	return p.exit
}

// waitGroupGone waits for the leader to be reaped and the group to empty;
// false if ctx ended first.
func (p *Process) waitGroupGone(ctx context.Context) bool {
	select {
	case <-p.reaped:
	case <-ctx.Done():
		return false
	}
	wait := 5 * time.Millisecond
	for {
		changed := reaperChanged()
		if !groupAlive(p.pid) {
			return true
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-changed:
		case <-t.C:
		}
		t.Stop()
		wait = min(wait*2, 200*time.Millisecond)
	}
}
