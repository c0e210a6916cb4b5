package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// Start is how `warden run` begins a run (DESIGN §2, §5).
type Start int

const (
	// StartAuto carries on the run state.json names when it did not finish
	// (stopped, interrupted, or its supervisor died); otherwise — no run
	// there, or one that finished — it starts a new run.
	StartAuto Start = iota
	// StartFresh (--fresh) starts a new run whatever the state dir holds.
	StartFresh
	// StartResume (--resume) carries on the run state.json names; one that
	// finished is not started again (Beginning.Finished); with no run there
	// it starts one.
	StartResume
	// StartReopen (--resume --from) carries on the run state.json names,
	// even one that finished: a task of it is to be reopened.
	StartReopen
)

// Beginning is how Begin began.
type Beginning struct {
	RunID     string
	CarriedOn bool
	// Finished: --resume found the run finished; nothing was started, and
	// ExitCode is that run's.
	Finished bool
	ExitCode int
}

// run is the run the team is in.
type runInfo struct {
	id      string
	started time.Time // when the run began (a run carried on: its first start)
	specs   map[string]state.TaskSpec
	carried []state.CarryOn // each time it was carried on, the newest last
}

// Begin decides which run the team is in and prepares it; its first line
// on stdout says so whenever a run is carried on or put aside. It kills
// what a dead supervisor left running, replays the hook spool into the run
// it belongs to, and either carries that run on (carry.go) or starts a new
// one, whose earlier records and worktrees become history; then the task of
// the record ResumeFrom chose resumes from it. What can fail is checked
// before its first line. Call it once, before Run (Run begins a new run
// itself when it was not called).
func (t *Team) Begin(how Start) (Beginning, error) {
	if err := t.openHolder(); err != nil { // holder = true (holder.go)
		return Beginning{}, err
	}
	b, err := t.begin(how)
	t.stopHeld() // what a found holder holds and is not taken back (holder.go)
	t.killHeldBoxes()
	if err == nil && !b.Finished && t.from != nil {
		t.pin(t.from) // --resume --from, chosen and checked before (ResumeFrom)
	}
	if err == nil && !b.Finished {
		t.keyWithinReach()
		t.sayBox()
	}
	return b, err
}

// sayBox sets up the agents' box (sandbox = "box") and says on stdout
// what it holds on this kernel and what it does not.
func (t *Team) sayBox() {
	if t.cfg.Sandbox != config.SandboxBox {
		t.printf("%s\n", memory.BoxStatus{}.String())
		return
	}
	t.deps.Memory.Start()
	t.printf("%s\n", t.deps.Memory.Box().String())
}

// keyWithinReach warns when the key records are sealed with is inside an
// agent's dir: that agent could read it, and seal what it forges.
func (t *Team) keyWithinReach() {
	for _, a := range t.cfg.Agents {
		if t.keyPath != "" && a.Dir != "" && state.KeyInside(t.keyPath, a.Dir) {
			t.log.Warn("the record key is inside an agent's dir", "agent", a.Name, "key", t.keyPath, "dir", a.Dir)
			t.printf("WARNING: the key warden seals its records with (%s) is inside %s's dir %s: that agent can read it, "+
				"and a record it seals with it passes for warden's (set XDG_STATE_HOME to a directory outside every agent's dir)\n",
				t.keyPath, a.Name, a.Dir)
		}
	}
}

func (t *Team) begin(how Start) (Beginning, error) {
	prev, err := state.ReadSnapshot(t.dir.Root)
	if errors.Is(err, os.ErrNotExist) {
		prev, err = nil, nil
	}
	if err != nil {
		return Beginning{}, fmt.Errorf("%w (`warden run --fresh` starts a new run and keeps the old records as history)", err)
	}
	t.killLeftovers(prev)
	switch {
	case prev == nil:
		return t.newRun(nil, ""), nil
	case prev.RunID == "":
		return t.newRun(prev, "state.json names no run (written by an older warden): its records are kept as history"), nil
	case how == StartFresh:
		return t.newRun(prev, "--fresh"), nil
	case prev.Ended == state.EndedFinished && how == StartAuto:
		return t.newRun(prev, "run "+prev.RunID+" finished"+ended(prev)), nil
	case prev.Ended == state.EndedFinished && how == StartResume:
		// A task is complete by warden's archive, not by state.json's
		// word — unless an older warden wrote the run (nothing sealed).
		t.store.OnUntrusted = t.untrustedRecord
		proven, err := t.store.CompletedTasks(prev.RunID)
		if err != nil {
			return Beginning{}, fmt.Errorf("run %s: %w", prev.RunID, err)
		}
		sealed := t.store.RunSealed(prev.RunID)
		code, n := 0, 0
		for _, ts := range prev.Tasks {
			switch {
			case ts.State == queue.Complete && sealed && !proven[ts.ID]:
				t.printf("WARNING: state.json says %s is complete, but no archive warden sealed says so: not counted\n", protocol.Plain(ts.ID))
				code = 1
			case ts.State != queue.Complete:
				code = 1
			default:
				n++
			}
		}
		t.printf("FINISHED: run %s finished%s: %d of %s complete; nothing to carry on (without --resume, `warden run` starts a new run)\n",
			prev.RunID, ended(prev), n, plural(len(prev.Tasks), "task"))
		t.log.Info("the run finished: nothing to resume", "run_id", prev.RunID, "exit_code", code)
		return Beginning{RunID: prev.RunID, Finished: true, ExitCode: code}, nil
	}
	return t.carryOn(prev)
}

// plural is "1 task", "2 tasks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ended says when the run of prev ended, as " at 2006-01-02 15:04".
func ended(prev *state.Snapshot) string {
	if prev.UpdatedAt.IsZero() {
		return ""
	}
	return " at " + prev.UpdatedAt.Local().Format("2006-01-02 15:04")
}

// newRun starts a new run. The previous run's spooled hook answers become
// its records, then every open record is put aside as _aborted_, and the
// earlier worktrees and branches are retired (committed, removed, the
// branch renamed): history, never this run's state. why, when not empty,
// is said on stdout.
func (t *Team) newRun(prev *state.Snapshot, why string) Beginning {
	old := ""
	if prev != nil {
		old = prev.RunID
	}
	t.store.OnUntrusted = t.untrustedRecord
	t.store.SetRun(old)
	t.replaySpool(false)
	now := t.clock.Now()
	t.thisRun = runInfo{id: state.NewRunID(now), started: now, specs: t.taskSpecs()}
	t.store.SetRun(t.thisRun.id)
	t.deps.RunID = t.thisRun.id
	n, err := t.store.ArchiveOpen()
	if err != nil {
		t.log.Error("checkpoints of an earlier run not put aside", "error", err)
	}
	switch {
	case why == "":
		// The state dir's first run: said too, as every run's first line
		// says what it is.
		t.printf("NEW RUN: %s (the first in %s)\n", t.thisRun.id, t.dir.Root)
	case n == 0:
		t.printf("NEW RUN: %s (%s)\n", t.thisRun.id, why)
	default:
		t.printf("NEW RUN: %s (%s); %s of earlier runs put aside as _aborted_\n", t.thisRun.id, why, plural(n, "open record"))
	}
	t.retireWorktrees(old)
	t.forgetLandTasks()
	t.log.Info("a new run", "run_id", t.thisRun.id, "previous_run", old, "records_put_aside", n)
	t.events.Emit(event.RunStarted, "", "", "run_id", t.thisRun.id, "how", "new", "previous_run", old, "reason", why)
	return Beginning{RunID: t.thisRun.id}
}

// taskSpecs is what state.json keeps of the team file's tasks.
func (t *Team) taskSpecs() map[string]state.TaskSpec {
	out := map[string]state.TaskSpec{}
	for _, task := range teamTasks(t.cfg) {
		out[task.ID] = state.SpecOf(task)
	}
	return out
}

// untrustedRecord reports a record that is not warden's (Store.OnUntrusted,
// issue 33): a WARNING line and checkpoint_untrusted. Nothing in it is
// trusted — its task goes on from its last record of warden's.
func (t *Team) untrustedRecord(file string, cp *protocol.Checkpoint, why string) {
	file = protocol.Plain(file) // a name anyone may have given it
	task := ""
	if _, ok := t.cfg.Task(cp.TaskID); ok {
		task = cp.TaskID
	}
	what := fmt.Sprintf("%s, %d%%", protocol.Plain(cp.Status), cp.ProgressPercent)
	t.log.Warn("checkpoint not written by warden: not trusted", "file", file, "checkpoint_id", cp.CheckpointID, "reason", why)
	t.printf("WARNING: checkpoint %s (%s) was not written by warden: %s; not trusted, its task goes on from its last record of warden's\n",
		file, what, why)
	t.events.Emit(event.CheckpointUntrusted, "", task, "file", file, "checkpoint_id", cp.CheckpointID, "agent", cp.Agent,
		"status", cp.Status, "reason", why)
}

// restored reports a checkpoint file that did not parse (Store.OnRestore):
// restored from its newest intact copy, or lost when none was left.
func (t *Team) restored(file, from string, cp *protocol.Checkpoint) {
	name := filepath.Base(file)
	if cp == nil {
		t.printf("WARNING: checkpoint %s did not parse and no intact copy of it is left: put aside as %s.corrupt-*; its task resumes from an older record of the run or starts from its prompt\n", name, name)
		t.events.Emit(event.CheckpointRestored, "", "", "file", name, "from", "")
		return
	}
	rel, err := filepath.Rel(t.dir.Checkpoints(), from)
	if err != nil {
		rel = from
	}
	t.printf("WARNING: checkpoint %s did not parse: restored from %s (%s, %d%%, of %s)\n", name, rel, cp.Status,
		cp.ProgressPercent, cp.UpdatedAt.Local().Format("2006-01-02 15:04:05"))
	t.events.Emit(event.CheckpointRestored, cp.Agent, cp.TaskID, "file", name, "from", rel, "checkpoint_id", cp.CheckpointID)
}
