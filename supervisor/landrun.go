package supervisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/land"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// A team with land_by lands within its run (issue 37): once every task of
// the team file is complete, the team lands them on its integration
// branch; a conflict or a failing land_verify becomes a land task of its
// own (land.T3) for land_by — through the queue and the start gate as any
// task, on a worktree made where the land stopped — and when it completes
// the land goes on from there, its resolution merged first. After
// land_attempts land tasks for one stop, the stop is left for a person.
// land.json keeps the land tasks, so that a run carried on goes on with
// them.

// landRun is the run's own land.
type landRun struct {
	res    *land.Result
	err    error
	mu     sync.Mutex
	cancel context.CancelFunc // the land under way (nil: none)
	state  *state.Land        // on mu: where it stands, for state.json and the page
}

// landsInRun: the team lands within its run (land_by set, in worktree mode).
func (t *Team) landsInRun() bool {
	return t.cfg.Land != config.LandNone && t.cfg.LandBy != "" && t.deps.Workspaces != nil
}

// landStep lands the team's tasks once every one of the team file's is
// complete; true when it handed a land task to land_by, for which the team
// goes on.
func (t *Team) landStep() bool {
	if !t.landsInRun() || t.userStop.Load() || t.spent.Load() || t.atLimit.Load() || t.failedWith() != nil {
		return false
	}
	var tasks []queue.Status
	for _, ts := range t.queue.Snapshot() {
		switch {
		case ts.Lands != "":
		case ts.State != queue.Complete:
			return false // a land needs every task complete, as at the end of any run
		default:
			tasks = append(tasks, ts)
		}
	}
	path := t.dir.Layout.LandRecord()
	rec, err := land.ReadRecord(path)
	if err != nil {
		t.log.Warn("the land's record is not read: the land starts from the branch as it is", "error", err)
	}
	states := map[string]queue.State{}
	for _, ts := range t.queue.Snapshot() {
		states[ts.ID] = ts.State
	}
	resolved := rec.Resolutions(func(id string) bool { return states[id] == queue.Complete })
	ctx, cancel := context.WithTimeout(context.Background(), landTimeout)
	defer cancel()
	t.landed.mu.Lock()
	t.landed.cancel = cancel
	t.landed.mu.Unlock()
	defer func() {
		t.landed.mu.Lock()
		t.landed.cancel = nil
		t.landed.mu.Unlock()
	}()
	git := workspace.New(t.log.Named("git"))
	res, err := land.Run(ctx, land.Options{
		Team: t.cfg.Name, Path: t.dir.Layout.Land(), Landing: t.cfg.Landing, Tasks: tasks, Git: git,
		Log: t.log.Named("land"), Verify: t.landVerify(), Resolved: resolved, Good: rec.Good,
		Emit: func(name, task string, kv ...any) { t.events.Emit(name, "", task, kv...) },
		OnGood: func(head string) {
			rec.Good = head
			t.saveLand(rec)
		},
	})
	t.landed.res, t.landed.err = &res, err
	if err != nil {
		t.landed.res = nil
		t.log.Error("the land could not be made", "error", err, console.Printed, true)
		t.printf("WARNING: the land could not be made: %v\n", err)
		return false
	}
	rec.Left = nil
	defer func() { t.saveLand(rec) }() // as it is when landStep returns
	ls := landStateOf(res)
	defer func() {
		t.setLandState(ls)
		t.publish()
	}()
	if res.Stop == nil {
		return false
	}
	stop := *res.Stop
	if t.userStop.Load() || t.failedWith() != nil {
		return false // stopped while it landed: a land_verify cut short is no failure to hand over
	}
	tried := rec.Attempts(stop.Task)
	if why := t.landByCannot(tried); why != "" {
		rec.Left, ls.Left = &stop, true
		t.events.Emit(event.LandLeft, t.cfg.LandBy, stop.Task, "why", stop.Why, "attempts", tried, "reason", why)
		t.printf("LAND LEFT: %s for a person (%s): %s\n", protocol.Plain(stop.Task), why, protocol.Plain(firstLine(stop.Why)))
		return false
	}
	h, err := t.handOver(ctx, git, res, stop, tried+1)
	if err != nil {
		t.log.Error("the land could not be handed over", "error", err)
		rec.Left, ls.Left = &stop, true
		t.events.Emit(event.LandLeft, t.cfg.LandBy, stop.Task, "why", stop.Why, "attempts", tried, "reason", err.Error())
		t.printf("LAND LEFT: %s for a person (its land task could not be made: %v)\n", protocol.Plain(stop.Task), err)
		return false
	}
	rec.Hands = append(rec.Hands, h)
	ls.Handed, ls.By, ls.Attempt, ls.Attempts = h.ID, h.Agent, h.Attempt, t.cfg.LandAttempts
	t.addLandTask(h)
	t.events.Emit(event.LandHanded, h.Agent, h.ID, "lands", stop.Task, "kind", stop.Kind, "paths", h.Paths,
		"branch", h.Branch, "attempt", h.Attempt, "of", t.cfg.LandAttempts)
	t.printf("LAND HANDED: %s to %s (%s); attempt %d of %d\n", h.ID, h.Agent, protocol.Plain(firstLine(stop.Why)),
		h.Attempt, t.cfg.LandAttempts)
	return true
}

// landStateOf is where the land res stands.
func landStateOf(res land.Result) *state.Land {
	ls := &state.Land{Branch: res.Branch}
	for _, d := range res.Landed {
		ls.Landed = append(ls.Landed, d.Task)
	}
	for _, w := range res.Waits {
		ls.Waits = append(ls.Waits, w.Task+": "+w.Why)
	}
	if res.Stop != nil {
		ls.StoppedAt, ls.Why = res.Stop.Task, firstLine(res.Stop.Why)
	}
	return ls
}

// landState is where the run's land stands, for state.json, STATUS.md,
// warden ps and the page; nil before any.
func (t *Team) landState() *state.Land {
	t.landed.mu.Lock()
	defer t.landed.mu.Unlock()
	if t.landed.state == nil {
		return nil
	}
	l := *t.landed.state
	l.Text = protocol.Plain(l.Line())
	return &l
}

func (t *Team) setLandState(l *state.Land) {
	t.landed.mu.Lock()
	defer t.landed.mu.Unlock()
	t.landed.state = l
}

// landByCannot says why the stop is not handed to land_by ("": it is).
func (t *Team) landByCannot(tried int) string {
	if tried >= t.cfg.LandAttempts {
		return fmt.Sprintf("land_attempts %d spent", t.cfg.LandAttempts)
	}
	for _, a := range t.agents {
		if a.Name() == t.cfg.LandBy && a.Status().State == state.Failed {
			return "land_by " + a.Name() + " failed"
		}
	}
	return ""
}

// handOver makes the land task for stop, its attempt-th.
func (t *Team) handOver(ctx context.Context, git *workspace.Git, res land.Result, stop land.Wait, attempt int) (land.Hand, error) {
	by, _ := t.cfg.Agent(t.cfg.LandBy)
	id := land.HandID(stop, attempt)
	path, err := t.dir.Layout.Worktree(id)
	if err != nil {
		return land.Hand{}, err
	}
	branch := t.deps.Workspaces.Branch(id)
	paths, err := land.Handover(ctx, git, by.Dir, path, branch, stop)
	if err != nil {
		return land.Hand{}, err
	}
	return land.Hand{ID: id, Agent: by.Name, Attempt: attempt, Branch: branch, Paths: paths, Stop: stop,
		Prompt: land.Prompt(res, stop, branch, paths, t.cfg.LandVerify)}, nil
}

// addLandTask puts a land task in the queue, for land_by only.
func (t *Team) addLandTask(h land.Hand) {
	// No verify of its own: the land verifies it once merged, and a
	// failure is the next land task's prompt (land_attempts bounds them).
	t.queue.Add(config.Task{ID: h.ID, Title: "land " + h.Stop.Task, Prompt: h.Prompt, Agent: h.Agent, Lands: h.Stop.Task})
}

// restoreLandTasks puts the land tasks land.json names back in the queue
// (a run carried on), before the carrying on looks at its tasks.
func (t *Team) restoreLandTasks() {
	if !t.landsInRun() {
		return
	}
	rec, err := land.ReadRecord(t.dir.Layout.LandRecord())
	if err != nil {
		t.log.Warn("the land's record is not read: its land tasks are not carried on", "error", err)
		return
	}
	for _, h := range rec.Hands {
		t.addLandTask(h)
	}
	if n := len(rec.Hands); n > 0 || rec.Left != nil {
		ls := &state.Land{Branch: land.LandedBranch(t.cfg.Name), Left: rec.Left != nil}
		stop := rec.Left
		if n > 0 && stop == nil {
			h := rec.Hands[n-1]
			stop = &h.Stop
			ls.Handed, ls.By, ls.Attempt, ls.Attempts = h.ID, h.Agent, h.Attempt, t.cfg.LandAttempts
		}
		ls.StoppedAt, ls.Why = stop.Task, firstLine(stop.Why)
		t.setLandState(ls)
	}
}

// forgetLandTasks: a new run hands its own land tasks (the integration
// branch's last verified head is kept).
func (t *Team) forgetLandTasks() {
	path := t.dir.Layout.LandRecord()
	rec, err := land.ReadRecord(path)
	if err != nil || (len(rec.Hands) == 0 && rec.Left == nil) {
		return
	}
	t.saveLand(land.Record{Good: rec.Good})
}

func (t *Team) saveLand(rec land.Record) {
	if err := rec.Write(t.dir.Root, t.dir.Layout.LandRecord()); err != nil {
		t.log.Error("the land's record is not written", "error", err)
	}
}

// landVerify is land_verify as the team runs verify commands: its seam
// (the simulation's), else nil (queue.VerifyWithin).
func (t *Team) landVerify() func(ctx context.Context, argv []string, dir string, timeout time.Duration) queue.VerifyResult {
	if t.deps.Verify == nil {
		return nil
	}
	return func(ctx context.Context, argv []string, dir string, timeout time.Duration) queue.VerifyResult {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return t.deps.Verify(ctx, argv, dir)
	}
}

// stopLanding ends a land under way (a stop).
func (t *Team) stopLanding() {
	t.landed.mu.Lock()
	defer t.landed.mu.Unlock()
	if t.landed.cancel != nil {
		t.landed.cancel()
	}
}

// startAgent runs the one agent named in generation g (land_by, for its
// land task); done closes when it returns.
func (t *Team) startAgent(g *agent.Generation, name string) <-chan struct{} {
	done := make(chan struct{})
	for _, a := range t.agents {
		if a.Name() == name {
			go func() {
				defer close(done)
				a.Run(g)
			}()
			return done
		}
	}
	close(done)
	return done
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
