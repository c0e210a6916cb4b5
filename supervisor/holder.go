package supervisor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/hold"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// holderEnd bounds the holder's end with the run: its own stop of what it
// still holds (SIGTERM, SIGKILL after 5 s), and its exit.
const holderEnd = 10 * time.Second

// openHolder, with holder = true, finds the team's holder on its socket
// or starts one (`warden hold`, in a session of its own), and makes every
// session start its agent through it. A holder found with live agents is
// an earlier warden's: they are stopped, as killLeftovers ends what a dead
// supervisor left.
func (t *Team) openHolder() error {
	if !t.cfg.Holder || t.hold != nil {
		return nil
	}
	h, found, err := hold.Open(t.log, hold.Options{Socket: t.dir.HolderSocket(), Bin: wardenExecutable(),
		LogPath: filepath.Join(t.dir.Logs(), "holder.log"), OrphanTimeout: t.cfg.OrphanTimeout})
	if err != nil {
		return fmt.Errorf("holder = true: %w", err)
	}
	t.hold = h
	t.deps.Start = func(log hclog.Logger, cfg runner.Config) (session.Process, error) {
		p, err := h.Start(log, cfg)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	t.held.found = found
	return nil
}

// heldState is what a holder found on its socket (an earlier warden's)
// means for the run: its agents live in the dead warden's boxes, which are
// killed only when none of them is taken back.
type heldState struct {
	found   bool
	deadPid int   // the dead warden whose boxes wait (killStaleBoxes)
	taken   []int // the pids of the sessions taken back: their boxes stay
}

// stopHeld stops the live agents a found holder holds for an earlier
// warden that are not taken back (takeback.go).
func (t *Team) stopHeld() {
	if t.hold == nil || !t.held.found {
		return
	}
	pids, err := t.hold.StopLive()
	if err != nil {
		t.log.Error("agents the holder held for a dead supervisor not all stopped", "error", err)
	}
	if len(pids) > 0 {
		t.log.Warn("stopped the agents the holder held for a dead supervisor", "holder_pid", t.hold.Pid(), "pids", pids)
		t.events.Emit(event.AgentForceTerminated, "", "", "reason", "held for a dead supervisor",
			"holder_pid", t.hold.Pid(), "pids", pids)
	}
}

// endHolder ends the holder with the run (Close): nothing is left behind.
func (t *Team) endHolder() {
	if t.hold == nil {
		return
	}
	if err := t.hold.End(holderEnd); err != nil {
		t.log.Error("the holder did not end with the run", "error", err)
	}
}

// heldBy refuses, on the control socket, a process the holder started or
// reparented (ancestors: pid's, nearest first) or one carrying a runner
// tag of the holder's: an agent's, as its session's check would.
func (t *Team) heldBy(pid int, ancestors []runner.ProcStat) error {
	if t.hold == nil {
		return nil
	}
	hp := t.hold.Pid()
	for _, p := range ancestors {
		if p.Pid == hp {
			return fmt.Errorf("pid %d was started by this team's holder (an agent's process, or one it left behind)", pid)
		}
	}
	if runner.CarriesTagOf(pid, hp) {
		return fmt.Errorf("pid %d carries the runner tag of one of the holder's agents", pid)
	}
	return nil
}

// killStaleBoxes kills the boxes a dead warden left (memory.KillStaleBoxes)
// — unless the team's holder was found: its agents live in them; then
// they wait for killHeldBoxes.
func (t *Team) killStaleBoxes(ctx context.Context, pid int) (int, error) {
	if t.held.found {
		t.held.deadPid = pid
		return 0, nil
	}
	return memory.KillStaleBoxes(ctx, pid)
}

// killHeldBoxes kills the dead warden's boxes once the holder's agents
// that were not taken back are stopped: what they left there (an escapee
// that shed its tag) goes with them. The box of a session taken back
// stays until the session moves into its new box (memory.MoveInto).
func (t *Team) killHeldBoxes() {
	if t.held.deadPid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.ShutdownTimeout)
	defer cancel()
	if boxes, err := memory.KillStaleBoxes(ctx, t.held.deadPid, t.held.taken...); err != nil || boxes > 0 {
		t.log.Warn("killed the boxes the dead supervisor left", "supervisor_pid", t.held.deadPid, "boxes", boxes, "error", err)
	}
}

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
		if as.Unprompted {
			// The dead warden was typing its first prompt, or had not
			// pressed its Enter: taken back, the session would sit on a
			// draft for good. Its task starts afresh (stopHeld ends it).
			t.log.Info("a held session not taken back: its first prompt was never taken", "agent", as.Name, "task", as.Task, "pid", as.Pid)
			continue
		}
		for _, h := range held {
			if h.Pid != as.Pid {
				continue
			}
			id := h.ID
			t.hold.Claim(id)
			a.SetTakeBack(&agent.TakeBack{Task: as.Task, Attempt: as.Attempt, SessionID: as.Session, Pid: h.Pid, Since: as.LastCheckpoint, Requested: as.RequestedAt, PausedUntil: as.PausedUntil,
				Start: func(log hclog.Logger, cfg runner.Config) (session.Process, error) {
					if lines(a.Config().Profile) {
						cfg.Replay = unhandledTail(log, cfg.LogPath) // replay.go
					}
					p, err := t.hold.Take(log, cfg, id)
					if err != nil {
						return nil, err
					}
					if cfg.Cgroup != nil { // into this warden's box (memory.MoveInto)
						if n, err := memory.MoveInto(cfg.Cgroup.Path(), p.Pid()); err != nil {
							log.Warn("a session taken back left in the dead supervisor's box", "error", err)
						} else if n > 0 {
							log.Info("a session taken back moved into this supervisor's box", "processes", n)
						}
					}
					return p, nil
				},
				Drop: func() { t.hold.Drop(id) }})
			out = append(out, takenBack{agent: as.Name, task: as.Task, pid: h.Pid})
			t.held.taken = append(t.held.taken, h.Pid)
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

// takeBackWait bounds how long a team checkpoint waits for the sessions
// being taken back (waitTakeBacks).
const takeBackWait = 10 * time.Second

// waitTakeBacks holds a team checkpoint off until every session being
// taken back from the holder is taken back (its process attached, what
// the holder kept read and recorded) or dropped, for takeBackWait at most.
// A checkpoint asked for before the run began (the signal file a warden
// killed during a team checkpoint left) would otherwise stop the team
// before its agents take their sessions back: each held session dropped
// unread, and the answers the holder kept for it lost with it.
func (t *Team) waitTakeBacks() {
	deadline := time.After(takeBackWait)
	for _, a := range t.agents {
		c := a.TakeBackSettled()
		if c == nil {
			continue
		}
		select {
		case <-c:
		case <-deadline:
			t.log.Warn("a team checkpoint waited for the sessions being taken back: going on without them", "waited", takeBackWait)
			return
		}
	}
}
