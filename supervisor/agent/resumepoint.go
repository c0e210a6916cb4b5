package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
)

// ResumePoint is the checkpoint a session on task may resume from, or nil:
// the task's newest record of this run (since the task was last made to
// start afresh), whichever agent left it — a failed agent's _crashed_
// archive included —, else the record `--resume --from` chose. file names
// where it came from ("" for a chosen one). The team's handoff takes each
// open task's from here too, so that it and the next session's first
// prompt speak of the same record.
func (d *Deps) ResumePoint(task string) (cp *protocol.Checkpoint, file string) {
	since, _ := d.Queue.Afresh(task)
	if cp, file := d.Store.LatestFile(task, d.RunID, since); cp != nil {
		return cp, file
	}
	return d.Team.Pinned(task), ""
}

// resumeFrom is the checkpoint a new session on task resumes from (nil:
// from its prompt alone), and what the session must be told of it, in
// words: that it comes from a failed agent's archive, that it is older
// than stale_failure, that it reported the task done and it is to be
// verified, or why a record the agent said cannot be resumed was not. Each
// of these is in the log too, and the last two on stdout.
func (a *Agent) resumeFrom(task *config.Task) (*protocol.Checkpoint, string) {
	cp, file := a.d.ResumePoint(task.ID)
	if cp == nil {
		return nil, ""
	}
	d := a.d
	var said []string
	round, findings := d.Queue.ReviewFindings(task.ID)
	switch {
	case len(findings) > 0 && d.Queue.StateOf(task.ID) != queue.Complete:
		// Its reviewer found something in round round: the session fixes it.
		a.log.Info("task back from review with findings", "task", task.ID, "round", round, "findings", len(findings))
		said = append(said, fmt.Sprintf("Your work on this task was reviewed by %s (review round %d of at most %d), who "+
			"found this to change:\n- %s\nFix these, then answer with your checkpoint block (Status: complete) again: "+
			"it is verified and reviewed once more.", task.ReviewBy, round, d.Config.MaxReviewRounds, strings.Join(findings, "\n- ")))
	case !cp.Resumable && !cp.SaysNotResumable():
		// Reported done, never verified and completed: the session is there
		// to have it verified (the team stopped while its verify ran, say).
		a.log.Info("task reported done but not completed: its session has it verified", "task", task.ID, "checkpoint_id", cp.CheckpointID)
		said = append(said, fmt.Sprintf("An earlier session reported this task %s (checkpoint %s), but it was not verified "+
			"and completed before that session ended. Check that the work is all there, finish what is not, then answer "+
			"with your checkpoint block again so that it is verified.", cp.Status, cp.CheckpointID))
	case cp.SaysNotResumable():
		why := fmt.Sprintf("its last checkpoint %s (status %s, %d%%) says it cannot be resumed from (Resumable: no)",
			cp.CheckpointID, cp.Status, cp.ProgressPercent)
		a.log.Warn("task not resumed from its checkpoint", "task", task.ID, "checkpoint_id", cp.CheckpointID, "reason", why, console.Printed, true)
		d.Team.Printf(a.cfg.Name, "WARNING: %s is not resumed from its checkpoint: %s; it starts from its prompt\n", task.ID, why)
		d.Events.Emit(event.TaskAfresh, a.cfg.Name, task.ID, "reason", why, "checkpoint_id", cp.CheckpointID)
		return nil, fmt.Sprintf("An earlier session of this task left a checkpoint at %d%% that it said cannot be resumed "+
			"from. Start the task from its prompt; check what is already in the working directory before you redo "+
			"anything.", cp.ProgressPercent)
	}
	if name := filepath.Base(file); strings.Contains(name, "_crashed_") {
		a.log.Info("task resumes from a failed agent's archived checkpoint", "task", task.ID, "file", name, "from_agent", cp.Agent)
		said = append(said, fmt.Sprintf("This task was taken over: its last session ran on agent %s, which failed. You carry on "+
			"from the last checkpoint that agent left (%s); check its work before you build on it.", cp.Agent, name))
	}
	if file == "" {
		said = append(said, fmt.Sprintf("You resume from an earlier checkpoint (%s, of %s), chosen by a person with "+
			"`warden run --resume --from`; later work on this task may be in the working directory.", cp.CheckpointID,
			cp.UpdatedAt.UTC().Format("2006-01-02 15:04 MST")))
	}
	if age := d.Clock.Now().Sub(cp.UpdatedAt); d.Config.StaleFailure > 0 && age > d.Config.StaleFailure {
		age = staleAge(age, d.Config.StaleFailure)
		a.log.Warn("resuming from an old checkpoint", "task", task.ID, "checkpoint_id", cp.CheckpointID, "age", age, console.Printed, true)
		d.Team.Printf(a.cfg.Name, "WARNING: %s resumes from a checkpoint %s old (older than stale_failure %s): the session is told so\n",
			task.ID, age, d.Config.StaleFailure)
		d.Events.Emit(event.ResumeStale, a.cfg.Name, task.ID, "checkpoint_id", cp.CheckpointID, "age", age.String())
		said = append(said, fmt.Sprintf("The checkpoint below is %s old, older than the team's stale_failure (%s): the "+
			"files and the git history may have moved on since. Check them before you rely on what it says.", age, d.Config.StaleFailure))
	}
	return cp, strings.Join(said, "\n\n")
}

// staleAge is the age of a record older than limit as a person reads it:
// to the second (to the minute from an hour on), cut, never rounded up —
// and never cut to limit or below, so that it is true and says older than
// limit (8.4s past a limit of 8s says 8.4s, not 8s).
func staleAge(age, limit time.Duration) time.Duration {
	units := []time.Duration{time.Second, 100 * time.Millisecond, 10 * time.Millisecond, time.Millisecond}
	if age >= time.Hour {
		units = append([]time.Duration{time.Minute}, units...)
	}
	for _, u := range units {
		if t := age.Truncate(u); t > limit {
			return t
		}
	}
	return age
}
