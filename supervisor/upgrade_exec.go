package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
)

// execUpgrade lets go of the agents and execs the new binary in this
// process (same pid: the terminal, nohup, systemd's main pid, the lock's
// and state.json's pid stay; the holder stays its child). The agents are
// not stopped: each reader is paused between two reads and its session
// handles what it read (an answer read is recorded); the event log and
// state.json are written; then the exec closes every descriptor warden
// holds (all are close-on-exec: the masters, the holder's connection, the
// listeners, the lock), as a warden killed with -9 would leave them, and
// the holder drains the agents again until the new warden takes them back
// (Begin: carryOn, takeBack). It returns only when the exec failed: then
// the readers read on and nothing changed.
func (t *Team) execUpgrade(up *control.Upgrade) error {
	t.upgrade.mu.Lock()
	if t.upgrade.busy {
		t.upgrade.mu.Unlock()
		return errors.New("an upgrade is under way")
	}
	t.upgrade.busy = true
	extra := t.upgrade.env
	t.upgrade.mu.Unlock()
	defer func() {
		t.upgrade.mu.Lock()
		t.upgrade.busy = false
		t.upgrade.mu.Unlock()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), pauseWait)
	defer cancel()
	if _, err := t.hold.Pause(ctx); err != nil {
		t.hold.Resume()
		return fmt.Errorf("upgrade: %w: nothing changed", err)
	}
	for _, a := range t.agents {
		if s := a.Session(); s != nil {
			if err := s.Sync(ctx); err != nil {
				t.log.Warn("upgrade: a session did not handle all it read before the exec", "agent", a.Name(), "error", err)
			}
		}
	}
	names := make([]string, 0, len(up.Agents))
	for n := range up.Agents {
		names = append(names, n)
	}
	slices.Sort(names)
	t.log.Info("upgrading: letting go of the agents and replacing warden's binary", "from", up.From, "to", up.To,
		"binary", up.Binary, "agents", names)
	t.events.Emit(event.SupervisorUpgrading, "", "", "from", up.From, "to", up.To, "binary", up.Binary, "agents", names)
	t.flushState()

	env := upgradeEnv(os.Environ(), up.From, extra)
	err := syscall.Exec(up.Binary, os.Args, env)
	// Still here: the exec failed, nothing was replaced.
	t.hold.Resume()
	t.log.Error("upgrade: the new binary was not executed: warden runs on", "binary", up.Binary, "error", err)
	t.events.Emit(event.SupervisorUpgradeFailed, "", "", "binary", up.Binary, "reason", err.Error())
	return fmt.Errorf("exec %s: %w: %s runs on, its agents untouched", up.Binary, err, up.From)
}

// upgradeEnv is this process's environment for the new binary: the
// version it replaces, and what was taken out at start (extra).
func upgradeEnv(environ []string, from string, extra []string) []string {
	out := make([]string, 0, len(environ)+len(extra)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, UpgradedFromEnv+"=") {
			out = append(out, kv)
		}
	}
	out = append(out, extra...)
	return append(out, UpgradedFromEnv+"="+from)
}

// flushState writes state.json and STATUS.md now, after any write under
// way: what the new warden reads is the team as it is.
func (t *Team) flushState() {
	if !t.started.Load() {
		return
	}
	t.pubMu.Lock()
	for t.writing {
		t.written.Wait()
	}
	t.writing = true
	t.writeLocked() // unlocks pubMu while it writes; writing ends, or a goroutine takes over
	for t.writing {
		t.written.Wait()
	}
	t.pubMu.Unlock()
}
