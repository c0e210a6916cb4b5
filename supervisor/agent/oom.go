package agent

import (
	"fmt"
	"syscall"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/session"
)

// An agent the kernel's OOM killer ended dies of SIGKILL, and the kernel
// leaves a record of it that warden reads without dmesg (which needs
// privileges, and whose lines name a pid that may be another's by then):
//
//   - in the session's own cgroup (memory_max held by a cgroup), the
//     group's memory.events oom_kill count: the kernel counts there every
//     OOM kill of a process in the group, whether the group's limit or the
//     machine's memory caused it. This is certain.
//   - elsewhere, /proc/vmstat's oom_kill: the machine's count of OOM kills
//     (every cgroup's, a container's included). The RSS watch reads it just
//     before each sample (every 2 s); the window is from the last-but-one
//     sample that saw the agent's tree alive (not the last: the kernel counts
//     the kill before the dying tree leaves /proc, and a sample may fall in
//     between) — without the watch, from the session's start — to its end.
//     The count rising in that window and the SIGKILL mean an OOM kill
//     happened then, not that it was this agent's: another process killed in
//     the same window while someone sent the agent SIGKILL would read the
//     same. That is likely, not certain, and the event says which record it
//     rests on.
//
// A SIGKILL warden sent itself (a stop's deadline, a second Ctrl-C) is never
// an OOM kill, nor is a death by any other signal. Whether the process is
// still in /proc says nothing: it is reaped either way.

// oomEvidence says why the session's end was the OOM killer's, or "".
func (a *Agent) oomEvidence(t *memory.Ticket, grp *memory.Group, exit runner.Exit, forced bool, before int64, beforeOK bool) string {
	if exit.Signal != syscall.SIGKILL || forced {
		return ""
	}
	if grp != nil {
		if n, ok := grp.OOMKills(); ok {
			if n > 0 {
				return fmt.Sprintf("its cgroup's memory.events counts oom_kill %d", n)
			}
			return "" // the group says no
		}
	}
	after, ok := a.d.Memory.OOMCount()
	if !ok {
		return ""
	}
	base, since, known := before, "the session started", beforeOK
	if n, seen := t.LastSeenOOM(); seen {
		base, since, known = n, "the RSS watch saw its processes alive (2 samples before their end)", true
	}
	if !known || after <= base {
		return ""
	}
	return fmt.Sprintf("the kernel's oom_kill count (/proc/vmstat) rose by %d since %s", after-base, since)
}

// afterSession reads what the session's end says of memory: an OOM kill
// (agent_oom, a WARNING line; the restart policy then restarts the agent
// from its checkpoint, the reason in the log), and removes its cgroup. It
// returns the reason a restart gives, or "".
func (a *Agent) afterSession(t *memory.Ticket, s *session.Session, grp *memory.Group, exit runner.Exit, before int64, beforeOK bool, task string) string {
	defer func() {
		if err := grp.Remove(); err != nil {
			a.log.Warn("session cgroup not removed", "error", err)
		}
	}()
	if ev := a.oomEvidence(t, grp, exit, s.Forced(), before, beforeOK); ev != "" {
		kv := []any{"pid", s.Pid(), "signal", "SIGKILL", "evidence", ev, "session_id", s.ID()}
		if p := t.Peak(); p > 0 {
			kv = append(kv, "rss", p)
		}
		if a.cfg.MemoryMax > 0 {
			kv = append(kv, "memory_max", a.cfg.MemoryMax)
		}
		a.log.Error("the kernel's OOM killer ended the agent", "evidence", ev, console.Printed, true)
		a.d.Events.Emit(event.AgentOOM, a.cfg.Name, task, kv...)
		a.d.Team.Printf(a.cfg.Name, "WARNING: %s was killed by the kernel's OOM killer (%s)\n", a.cfg.Name, ev)
		return "killed by the kernel's OOM killer (" + ev + ")"
	}
	if t.Over() {
		return "over its memory_max " + config.FormatSize(a.cfg.MemoryMax)
	}
	return ""
}

// overMemory is the RSS watch's verdict on session s: its tree holds rss,
// over the agent's memory_max. A last checkpoint, then a restart (through
// the restart policy: an agent that is over again and again ends failed).
func (a *Agent) overMemory(s *session.Session, task string, rss int64) {
	limit := a.cfg.MemoryMax
	a.log.Warn("over memory_max: a last checkpoint, then a restart", "rss", rss, "memory_max", limit, console.Printed, true)
	a.d.Events.Emit(event.AgentOverMemory, a.cfg.Name, task, "rss", rss, "memory_max", limit, "session_id", s.ID())
	a.d.Team.Printf(a.cfg.Name, "WARNING: %s holds %s, over its memory_max %s: a last checkpoint, then a restart\n",
		a.cfg.Name, config.FormatSize(rss), config.FormatSize(limit))
	if err := s.Restart(); err != nil {
		a.log.Debug("over memory_max: the session had ended", "error", err)
	}
}
