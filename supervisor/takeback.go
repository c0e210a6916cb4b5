package supervisor

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// takenBack is an agent whose session a run carried on takes back from
// the team's holder.
type takenBack struct {
	agent, task string
	pid         int
}

// takeBack, carrying on run prev with the team's holder found (holder =
// true, a warden killed or crashed): each agent that was at work on a task
// when warden died, and whose last process (state.json's pid) the holder
// still holds, takes that session back in its first Run — the same task,
// attempt and session_id, the holder's buffered output read through the
// screen reader, nothing typed again (agent.TakeBack). One that exited
// meanwhile ends at once: a crash of that session, under the agent's
// restart policy. The other live agents of the holder are stopped
// (stopHeld), the session of a task `--resume --from` reopens among them.
func (t *Team) takeBack(prev *state.Snapshot) []takenBack {
	if t.hold == nil || !t.held.found {
		return nil
	}
	held, err := t.hold.Agents()
	if err != nil {
		t.log.Error("the holder's agents not listed: none is taken back", "error", err)
		return nil
	}
	var out []takenBack
	for _, as := range prev.Agents {
		a := t.agentNamed(as.Name)
		if a == nil || as.Task == "" || as.Session == "" || as.Pid == 0 ||
			(as.State != state.Running && as.State != state.Waiting) {
			continue
		}
		if t.from != nil && t.from.TaskID == as.Task {
			continue // --resume --from: the task goes back to that record, not on
		}
		for _, h := range held {
			if h.Pid != as.Pid {
				continue
			}
			id := h.ID
			t.hold.Claim(id)
			a.SetTakeBack(&agent.TakeBack{Task: as.Task, Attempt: as.Attempt, SessionID: as.Session, Pid: h.Pid, Since: as.LastCheckpoint,
				Start: func(log hclog.Logger, cfg runner.Config) (session.Process, error) {
					p, err := t.hold.Take(log, cfg, id)
					if err != nil {
						return nil, err
					}
					return p, nil
				},
				Drop: func() { t.hold.Drop(id) }})
			out = append(out, takenBack{agent: as.Name, task: as.Task, pid: h.Pid})
			t.held.tookBack = true
			t.log.Info("taking a session back from the holder", "agent", as.Name, "task", as.Task, "pid", h.Pid,
				"attempt", as.Attempt, "session_id", as.Session, "exited", h.Exit != nil)
			break
		}
	}
	return out
}

// takenLine is what the first line adds for the agents taken back.
func takenLine(taken []takenBack) string {
	if len(taken) == 0 {
		return ""
	}
	parts := make([]string, len(taken))
	for i, tb := range taken {
		parts[i] = fmt.Sprintf("%s (%s, pid %d)", tb.agent, tb.task, tb.pid)
	}
	return "; taken back mid-turn from the holder: " + strings.Join(parts, ", ")
}

// takenNames are the agents taken back, for run_started.
func takenNames(taken []takenBack) []string {
	out := make([]string, len(taken))
	for i, tb := range taken {
		out[i] = tb.agent
	}
	return out
}
