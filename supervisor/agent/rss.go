package agent

import (
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// watch makes the RSS watch follow session s of the agent on ticket t
// (nil: no admission); a memory_max no cgroup holds (grp nil, or a box's
// group without the memory controller) is the
// watch's to hold: over it, the session is asked for a last checkpoint and
// restarted.
func (a *Agent) watch(t *memory.Ticket, s *session.Session, grp *memory.Group, task string) {
	if t == nil {
		return
	}
	t.Watch(a.cfg.MemoryMax, !grp.Limits(), func() int {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.sess != s || a.state != state.Running && a.state != state.Waiting && a.state != state.Stopping {
			return 0
		}
		return a.pid
	}, func(rss int64) { a.overMemory(s, task, rss) })
}
