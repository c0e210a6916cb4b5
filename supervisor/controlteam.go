package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/face"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// eventsKept is how many recent events the page gets when it connects.
const eventsKept = 200

// startControl serves the team's control socket (warden ps, screen,
// attach, send, restart, stop, the page); it returns the function that
// stops it and the channel that gets the error the socket died of, or why
// it could not listen.
func (t *Team) startControl() (stop func(), failed <-chan error, err error) {
	srv, err := control.Listen(t.log, t.dir.ControlSocket(), controlTeam{t}, t.hub)
	if err != nil {
		return nil, nil, err
	}
	return srv.Close, srv.Failed(), nil
}

// controlTeam is the team as the control socket sees it.
type controlTeam struct{ t *Team }

var _ control.Gatekeeper = controlTeam{}

// Admit refuses, on the control socket, every process this warden started
// and everything those started — its agents and their process trees, a
// verify or notify command, an escapee it adopted — as the kernel tells
// them (the caller's session and process group, its parents; an
// environment tag of one of its agents only ever refuses). The socket
// serves the person (DESIGN §7): an agent that could send, attach --rw,
// restart or stop could answer another agent's dialog or end the night.
// Read-only requests are refused too: another agent's screen may show what
// that agent read, and an agent's own state is on its own screen.
func (c controlTeam) Admit(pid int) error {
	chain := runner.Ancestry(pid)
	if len(chain) == 0 {
		return fmt.Errorf("pid %d cannot be told apart from an agent's (/proc says nothing of it)", pid)
	}
	self := runner.Self()
	if chain[0].Pid == self.Pid {
		return nil // warden itself: its own page
	}
	agents := map[int]string{}
	for _, a := range c.t.agents {
		if s := a.Session(); s != nil {
			agents[s.Pid()] = a.Name()
		}
	}
	const serves = "the control socket serves the person, not the agents (use a terminal of your own)"
	for _, id := range []int{chain[0].Sid, chain[0].Pgid} {
		if name, ok := agents[id]; ok {
			return fmt.Errorf("pid %d is inside agent %s's process tree: %s", pid, name, serves)
		}
	}
	for i, p := range chain {
		if name, ok := agents[p.Pid]; ok {
			return fmt.Errorf("pid %d is inside agent %s's process tree: %s", pid, name, serves)
		}
		if i > 0 && p.Pid == self.Pid && p.Start == self.Start {
			return fmt.Errorf("pid %d was started by this warden (an agent's process, a verify or notify command, or one they left behind): %s", pid, serves)
		}
	}
	if err := c.t.heldBy(pid, chain[1:]); err != nil { // holder.go
		return fmt.Errorf("%w: %s", err, serves)
	}
	if runner.CarriesTagOf(pid, self.Pid) {
		return fmt.Errorf("pid %d carries the runner tag of one of this warden's agents: %s", pid, serves)
	}
	return nil
}

// PS is the team's agents and tasks now.
func (c controlTeam) PS() control.PS {
	t := c.t
	root, _ := filepath.Abs(t.dir.Root)
	ps := control.PS{Team: t.cfg.Name, Pid: os.Getpid(), StateDir: root, StartedAt: t.startedAt, Now: t.clock.Now(),
		Tasks: t.queue.Snapshot(), Memory: t.memoryStatus(), RunID: t.thisRun.id, CarriedOn: t.thisRun.carried,
		Overlaps: t.deps.Overlaps.Current(), Land: t.landState()}
	ps.Usage, ps.Budget = t.spendNow()
	if g := t.currentGen(); g != nil {
		ps.Stopping = g.IsStopping()
	}
	for _, a := range t.agents {
		ps.Agents = append(ps.Agents, agentInfo(a))
	}
	sort.Slice(ps.Agents, func(i, j int) bool { return ps.Agents[i].Name < ps.Agents[j].Name })
	return ps
}

func agentInfo(a *agent.Agent) control.Agent {
	info := control.Agent{AgentStatus: a.Status(), Profile: a.Config().Profile}
	s := a.Session()
	if info.Dialog != "" { // what it asks, and its id for warden answer --dialog
		info.Question, info.DialogID = profile.QuestionOf(info.Dialog), profile.DialogID(info.Dialog)
		if s != nil {
			info.DialogID = s.DialogID(info.Dialog) // the one agent_waiting and the notification gave
		}
	}
	if s != nil {
		info.SessionStarted = s.Started()
		info.NextRequest, info.RequestedAt = s.Due()
		info.Viewers, info.OutputSeq = s.Viewers(), s.OutputSeq()
	}
	if cp := a.LastRecord(); cp != nil {
		info.Checkpoint = &control.Checkpoint{ID: cp.CheckpointID, Task: cp.TaskID, Status: cp.Status,
			Progress: cp.ProgressPercent, Completed: cp.Completed, Remaining: cp.Remaining, Blockers: cp.Blockers, At: cp.UpdatedAt}
	}
	return info
}

// session is the running session of the agent called name.
func (c controlTeam) session(name string) (*session.Session, error) {
	a := c.t.agentNamed(name)
	if a == nil {
		names := make([]string, 0, len(c.t.agents))
		for _, a := range c.t.agents {
			names = append(names, a.Name())
		}
		return nil, fmt.Errorf("no agent named %q in team %s (agents: %s)", name, c.t.cfg.Name, strings.Join(names, ", "))
	}
	s := a.Session()
	if s == nil {
		return nil, fmt.Errorf("agent %s has %w now (it is %s)", name, control.ErrNoSession, a.Status().State)
	}
	return s, nil
}

func (c controlTeam) Screen(name string) (*control.Screen, error) {
	s, err := c.session(name)
	if err != nil {
		return nil, err
	}
	seq := s.OutputSeq()
	rows, err := s.Screen()
	if err != nil {
		return nil, fmt.Errorf("screen of %s: %w", name, err)
	}
	return &control.Screen{Agent: name, Rows: rows, Plain: s.Plain(), Seq: seq}, nil
}

func (c controlTeam) Viewer(name string) (face.Viewer, error) {
	s, err := c.session(name)
	if err != nil {
		return nil, err
	}
	v, err := s.Attach()
	if err != nil {
		return nil, fmt.Errorf("agent %s has %w now (%v)", name, control.ErrNoSession, err)
	}
	return v, nil
}

func (c controlTeam) Keys(name string, p []byte) error {
	s, err := c.session(name)
	if err != nil {
		return err
	}
	return s.Keys(p)
}

func (c controlTeam) Send(ctx context.Context, name, text string, force bool) (face.SendResult, error) {
	s, err := c.session(name)
	if err != nil {
		return face.SendResult{}, err
	}
	return s.Send(ctx, text, force), nil
}

// Restart asks the agent for a last checkpoint and a new session from it,
// and waits until that session runs.
func (c controlTeam) Restart(ctx context.Context, name string) (*control.Restarted, error) {
	old, err := c.session(name)
	if err != nil {
		return nil, err
	}
	a := c.t.agentNamed(name)
	if err := a.Restart(); err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no new session yet (%w)", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if s := a.Session(); s != nil && s != old {
			r := &control.Restarted{Agent: name, Pid: s.Pid(), Session: s.ID()}
			if cp := a.LastRecord(); cp != nil {
				r.Checkpoint = cp.CheckpointID
			}
			return r, nil
		}
		switch st := a.Status(); st.State {
		case state.Idle, state.Exited, state.Failed, state.Stopped:
			return nil, fmt.Errorf("%s did not start again: it is %s (%s)", name, st.State, st.Reason)
		}
	}
}

// Stop asks for a team checkpoint and exit (warden stop); now skips the
// last checkpoint requests.
func (c controlTeam) Stop(now bool) {
	t := c.t
	t.events.Emit(event.StopRequested, "", "", "now", now)
	if t.finished.Load() {
		return
	}
	t.userStop.Store(true)
	if now {
		select {
		case t.hurry <- struct{}{}:
		default:
		}
	}
	t.trigger(trigger{source: "control", cause: protocol.CauseUserInterrupt, reason: "stopped by the user (warden stop)", now: now})
}

func (c controlTeam) Emit(name, agentName string, kv ...any) {
	c.t.events.Emit(name, agentName, "", kv...)
}

// tailLines returns up to n last lines of the file at path (events.jsonl).
func tailLines(path string, n int) [][]byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const window = 256 << 10
	if st, err := f.Stat(); err == nil && st.Size() > window {
		_, _ = f.Seek(st.Size()-window, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, window))
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > 0 && len(b) == window {
		lines = lines[1:] // the first one is cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var out [][]byte
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

var _ control.Answerer = controlTeam{}

// Answer answers the dialog the agent called name waits on, for a person
// (warden answer, the page): only the dialog they saw, never without one
// on the screen (session.Answer).
func (c controlTeam) Answer(ctx context.Context, name string, req control.AnswerRequest) (*control.Answered, error) {
	s, err := c.session(name)
	if err != nil {
		return nil, err
	}
	id := req.DialogID
	if id == "" && req.Dialog != "" {
		id = profile.DialogID(req.Dialog)
	}
	switch req.Via {
	case "cli", "page":
	default:
		return nil, fmt.Errorf("answer: unknown via %q (cli or page)", req.Via)
	}
	a, err := s.Answer(ctx, req.Choice, id, req.Via)
	if err != nil {
		return nil, fmt.Errorf("%s's dialog not answered: %w", name, err)
	}
	return &control.Answered{Agent: name, Choice: a.Choice, Kind: a.Kind, Question: a.Question, DialogID: a.DialogID, Took: a.Took}, nil
}
