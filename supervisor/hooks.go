package supervisor

import (
	"fmt"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
)

// startHookBus listens on the team's hook socket (the hooks reach it
// through `warden hook`) and routes each message to its agent's session. It
// returns the function that stops it.
func (t *Team) startHookBus() func() {
	srv, err := hookbus.Listen(t.log, t.dir.HookSocket())
	if err != nil {
		t.log.Warn("hook bus not listening: CLI hooks will spool", "error", err)
		return func() {}
	}
	srv.CheckSenders(t.ownsHookSender)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range srv.Messages() {
			t.routeHook(m)
		}
	}()
	return func() {
		srv.Close()
		<-done
	}
}

// routeHook hands a hook message to its agent's session — only from a
// process of that session's own tree (the sender's pid, from the kernel,
// must carry its runner tag), and only of a kind the agent's CLI sends (a
// plain agent's wrapper may send any).
func (t *Team) routeHook(m hookbus.Message) {
	a := t.agentNamed(m.Agent)
	s := (*session.Session)(nil)
	if a != nil {
		s = a.Session()
	}
	switch {
	case s == nil:
		t.log.Debug("hook message for no running session", "agent", m.Agent, "kind", m.Kind)
	case !senderOwned(m, s):
		t.refuseHook(m, "its sender is not a process of the agent")
	case !profile.Sends(a.Config().Profile, m.Kind):
		t.refuseHook(m, "not a kind the agent's CLI sends")
	default:
		s.Hook(m)
	}
}

// senderOwned is the bus's answer about m's sender, or — for a message it
// did not check — the session's.
func senderOwned(m hookbus.Message, s *session.Session) bool {
	if m.Checked {
		return m.Owned
	}
	return s.Owns(m.Pid)
}

// ownsHookSender reports whether process pid is of the running session of
// agent. The hook bus asks it while the sender waits for its reply.
func (t *Team) ownsHookSender(agent string, pid int) bool {
	a := t.agentNamed(agent)
	if a == nil {
		return false
	}
	s := a.Session()
	return s != nil && s.Owns(pid)
}

// hookRefusalEvery bounds the hook_refused events of one agent: a flood of
// forged messages is one event a period, with the count it stands for.
const hookRefusalEvery = 10 * time.Second

// refuseHook logs a refused hook message, and records it as an event at
// most once per hookRefusalEvery for its agent.
func (t *Team) refuseHook(m hookbus.Message, why string) {
	t.log.Warn("hook message refused", "reason", why, "agent", m.Agent, "kind", m.Kind, "pid", m.Pid)
	t.hookMu.Lock()
	r := t.refusals[m.Agent]
	r.n++
	now := t.clock.Now()
	emit := r.last.IsZero() || now.Sub(r.last) >= hookRefusalEvery
	n := r.n
	if emit {
		r = hookRefusals{last: now}
	}
	t.refusals[m.Agent] = r
	t.hookMu.Unlock()
	if emit {
		t.events.Emit(event.HookRefused, m.Agent, "", "kind", m.Kind, "sender_pid", m.Pid, "reason", why, "count", n)
	}
}

// hookRefusals counts an agent's refused hook messages since its last event.
type hookRefusals struct {
	last time.Time
	n    int
}

// replaySpool records the checkpoint answers that reached a hook while no
// warden listened (the supervisor was restarting): each valid block for an
// open task, newer than that agent's latest record of it, is a record of
// trigger "unasked" from a session warden never saw. Other spooled messages
// (gauges, limits) described a moment that is gone and are dropped. New
// runs it, so that --resume offers the replayed records.
func (t *Team) replaySpool() {
	msgs, skipped, err := hookbus.Drain(t.dir.Root)
	if err != nil {
		t.log.Warn("hook spool not read", "error", err)
	}
	open := map[string]queue.Status{}
	for _, ts := range t.queue.Snapshot() {
		if ts.State != queue.Complete && ts.State != queue.Failed {
			open[ts.ID] = ts
		}
	}
	replayed := 0
	for _, m := range msgs {
		f := profile.ReadHook(m.Kind, m.Payload)
		if !f.HasAnswer || t.agentNamed(m.Agent) == nil {
			continue
		}
		blocks, _ := protocol.ParseBlocks(f.Answer)
		for _, b := range blocks {
			ts, isOpen := open[b.Task]
			prev, _ := t.store.Load(m.Agent, b.Task)
			if !isOpen || (prev != nil && !prev.UpdatedAt.Before(m.At)) {
				continue
			}
			cp := b.Record()
			at := m.At.UTC()
			cp.CheckpointID = fmt.Sprintf("%s-%s-%s", m.Agent, b.Task, at.Format("20060102T150405.000000000Z"))
			cp.Agent, cp.TaskTitle, cp.SessionID, cp.Trigger = m.Agent, ts.Title, "spooled", protocol.TriggerUnasked
			cp.StartedAt, cp.UpdatedAt = at, at
			if prev != nil {
				cp.StartedAt, cp.Attempt = prev.StartedAt, prev.Attempt
			}
			if err := t.store.Save(&cp); err != nil {
				t.log.Error("spooled checkpoint not saved", "agent", m.Agent, "task", b.Task, "error", err)
				continue
			}
			replayed++
		}
	}
	if len(msgs) > 0 || skipped > 0 {
		t.log.Info("hook spool replayed", "messages", len(msgs), "records", replayed, "torn_lines", skipped)
	}
}
