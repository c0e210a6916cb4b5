package supervisor

import (
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/session"
)

// startHookBus listens on the team's hook socket (the hooks reach it
// through `warden hook`) and routes each message to its agent's session. It
// returns the function that stops it and the channel that gets the error
// the socket died of, or why it could not listen.
func (t *Team) startHookBus() (stop func(), failed <-chan error, err error) {
	srv, err := hookbus.Listen(t.log, t.dir.HookSocket())
	if err != nil {
		return nil, nil, err
	}
	srv.CheckSenders(t.ownsHookSender)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range srv.Messages() {
			t.RouteHook(m)
		}
	}()
	return func() {
		srv.Close()
		<-done
	}, srv.Failed(), nil
}

// RouteHook hands a hook message to its agent's session — only from a
// process of that session's own tree (the sender's pid, from the kernel,
// must be in the agent's session or below its process by the parent links:
// never an environment tag, which any process can copy), and only of a kind
// the agent's CLI sends (a plain agent's wrapper may send any).
func (t *Team) RouteHook(m hookbus.Message) {
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

// refuseHook logs a refused hook message and records it as an event, both
// at most once per hookRefusalEvery for its agent, with how many refusals
// they stand for.
func (t *Team) refuseHook(m hookbus.Message, why string) {
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
		t.log.Warn("hook message refused", "reason", why, "agent", m.Agent, "kind", m.Kind, "pid", m.Pid, "count", n)
		t.events.Emit(event.HookRefused, m.Agent, "", "kind", m.Kind, "sender_pid", m.Pid, "reason", why, "count", n)
	}
}

// hookRefusals counts an agent's refused hook messages since its last event.
type hookRefusals struct {
	last time.Time
	n    int
}
