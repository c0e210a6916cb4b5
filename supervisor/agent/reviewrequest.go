package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// reviewRequest is what a review round asks of its reviewer (the prompt of
// its session, under the preamble that names the review id as its task):
// the task, its title, the round, how to answer, and the change to
// review — in worktree mode the diff of the task's branch since it left
// base; in shared mode the files its author's last record names.
func (a *Agent) reviewRequest(rv *queue.Review, id string) string {
	d := a.d
	var b strings.Builder
	fmt.Fprintf(&b, "REVIEW REQUEST %s: review the work of agent %s on task %s", id, rv.Author, rv.Task.ID)
	if rv.Task.Title != "" {
		fmt.Fprintf(&b, " (%s)", rv.Task.Title)
	}
	fmt.Fprintf(&b, ", round %d of at most %d. Its agent says it is done", rv.Round, d.Config.MaxReviewRounds)
	if len(rv.Task.Verify) > 0 {
		fmt.Fprintf(&b, " and its verify (`%s`) passed", strings.Join(rv.Task.Verify, " "))
	}
	b.WriteString(".\n\nYou review; you change no file. When you are done, answer with a checkpoint block for " + id + ":\n" +
		"- approved: Status: complete, Completed \"- approved\", Remaining \"- nothing\";\n" +
		"- not yet: Status: complete, and each thing that must change a Remaining item (the findings: they go back to " + rv.Author + ").\n\n")
	b.WriteString(a.reviewChange(rv))
	return b.String()
}

// reviewChange is the change a review round is about.
func (a *Agent) reviewChange(rv *queue.Review) string {
	d := a.d
	if d.Workspaces != nil {
		if ts := d.Workspaces.Space(rv.Task.ID); ts != nil {
			ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
			defer cancel()
			diff, cut, err := ts.Repo.Diff(ctx, ts.Base, ts.Worktree.Branch, workspace.MaxDiff)
			if err != nil {
				a.log.Warn("review: the task's diff could not be read", "task", rv.Task.ID, "error", err)
				return fmt.Sprintf("The change: warden could not read it (%v); look at branch %s against %s in %s yourself.\n",
					err, ts.Worktree.Branch, ts.Base, ts.Repo.Root)
			}
			more := ""
			if cut {
				more = fmt.Sprintf("\n(cut at %d bytes: see the rest with `git diff %s...%s` in %s)\n", workspace.MaxDiff, ts.Base, ts.Worktree.Branch, ts.Repo.Root)
			}
			return fmt.Sprintf("The change, `git diff %s...%s` (the task's worktree: %s):\n\n%s%s", ts.Base, ts.Worktree.Branch,
				ts.Worktree.Path, diff, more)
		}
	}
	files := "none named"
	if cp, _ := d.Store.Load(rv.Author, rv.Task.ID); cp != nil && len(cp.FilesModified) > 0 {
		files = strings.Join(cp.FilesModified, ", ")
	}
	return fmt.Sprintf("The change: the team works in one shared directory, so warden has no diff of the task's own; "+
		"its author's last checkpoint names these files (Files Modified): %s. Read them there.\n", files)
}
