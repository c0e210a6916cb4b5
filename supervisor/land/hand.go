package land

import (
	"context"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// A stopped land handed to an agent (land_by): the land task's worktree is
// made where the land stopped (Handover), its prompt says what stopped it
// (Prompt); once the agent completes it, the next land merges its branch
// first (Options.Resolved) — the agent's commits count as the merge that
// stopped the land — verifies again and goes on.

// Resolution is a land task an agent completed.
type Resolution struct {
	ID     string   `json:"id"`     // the land task, land.T3
	Lands  string   `json:"lands"`  // what stopped the land (Wait.Task)
	Branch string   `json:"branch"` // its branch
	Paths  []string `json:"paths,omitempty"`
}

// HandID is the id of the land task that resolves stop, its attempt-th:
// land.T3, then land.T3.2; a land_verify that failed after several merges
// is land.verify.
func HandID(stop Wait, attempt int) string {
	id := "land." + stop.Task
	if strings.Contains(stop.Task, ", ") {
		id = "land.verify"
	}
	if attempt > 1 {
		id = fmt.Sprintf("%s.%d", id, attempt)
	}
	return id
}

// Handover makes the land task's worktree at path on branch: from stop.At,
// each of stop.Merging merged in order, a conflict committed as git left
// it, its markers in the files. It returns the paths left in conflict. A
// worktree already there (a run carried on) is taken as it is.
func Handover(ctx context.Context, git *workspace.Git, repoDir, path, branch string, stop Wait) ([]string, error) {
	repo, err := git.Find(ctx, repoDir)
	if err != nil {
		return nil, fmt.Errorf("handing the land over: %w", err)
	}
	wt, err := repo.Prepare(ctx, path, branch, []string{stop.At})
	if err != nil {
		return nil, fmt.Errorf("handing the land over: %w", err)
	}
	if wt.Reused {
		return stop.Paths, nil
	}
	var paths []string
	for _, b := range stop.Merging {
		p, err := wt.MergeKeepingConflicts(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("handing the land over: %w", err)
		}
		paths = append(paths, p...)
	}
	return paths, nil
}

// Prompt is the land task's prompt: what stopped the land and what to do.
func Prompt(r Result, stop Wait, branch string, paths []string, verify []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This is a land task. warden merges the night's complete tasks onto the integration branch %s, "+
		"in dependency order, and the land stopped at %s:\n\n%s\n\n", r.Branch, stop.Task, stop.Why)
	fmt.Fprintf(&b, "This worktree is on branch %s, made from %s where the land stopped", branch, r.Branch)
	if len(stop.Merging) > 0 {
		fmt.Fprintf(&b, ", with %s merged into it again", strings.Join(stop.Merging, ", "))
	}
	b.WriteString(".\n")
	if len(paths) > 0 {
		fmt.Fprintf(&b, "The merge conflicts: %s hold git's conflict markers (<<<<<<<, =======, >>>>>>>), committed as "+
			"git left them. Resolve each conflict so that the work of both sides is kept, and leave no marker.\n",
			strings.Join(paths, ", "))
	}
	if len(verify) > 0 {
		fmt.Fprintf(&b, "The integration branch must pass land_verify: `%s`, run in this worktree. ", strings.Join(verify, " "))
		if stop.Kind == KindVerify {
			b.WriteString("It fails now (its output is above): fix what fails. ")
		}
		b.WriteString("\n")
	}
	b.WriteString("Do not merge, rebase or reset branches: change the files, and warden commits your work as for any " +
		"task and lands this branch when you say the task is complete.\n")
	return b.String()
}

// resolutions merges the completed land tasks' branches not on the branch
// yet, from good: a land_verify after each with land_verify_each. A
// resolution that leaves conflict markers, conflicts or fails stops the
// land there (its Task what the land task resolves). It returns the new
// good head, and what it merged (ids, branches, what they resolve) for a
// last land_verify.
func (l *lander) resolutions(ctx context.Context, good string, tasks []queue.Status) (string, []string, []string, []string, error) {
	var merged, branches, lands []string
	for _, r := range l.o.Resolved {
		head, err := l.repo.BranchHead(ctx, r.Branch)
		if err != nil {
			return good, nil, nil, nil, fmt.Errorf("land %s: %w", r.ID, err)
		}
		if on, err := l.repo.IsAncestor(ctx, head, l.res.Branch); err != nil {
			return good, nil, nil, nil, fmt.Errorf("land %s: %w", r.ID, err)
		} else if on {
			continue
		}
		stop := Wait{Task: r.Lands, At: good, Merging: []string{r.Branch}}
		left, err := l.repo.ConflictMarkers(ctx, head, r.Paths)
		if err != nil {
			return good, nil, nil, nil, fmt.Errorf("land %s: %w", r.ID, err)
		}
		if len(left) > 0 {
			stop.Kind, stop.Paths = KindConflict, left
			stop.Why = fmt.Sprintf("the land task %s left conflict markers in %s", r.ID, strings.Join(left, ", "))
			l.stopBefore(ctx, stop, tasks)
			return good, nil, nil, nil, nil
		}
		if err := l.wt.MergeBranch(ctx, r.Branch); err != nil {
			if rerr := l.wt.ResetTo(ctx, good); rerr != nil {
				return good, nil, nil, nil, fmt.Errorf("land %s: %w; undoing it: %w", r.ID, err, rerr)
			}
			stop.Kind, stop.Why = KindMerge, fmt.Sprintf("merging %s (the land task %s) failed: %v", r.Branch, r.ID, err)
			if c, ok := err.(*workspace.ConflictError); ok {
				stop.Kind, stop.Paths = KindConflict, c.Paths
			}
			l.stopBefore(ctx, stop, tasks)
			return good, nil, nil, nil, nil
		}
		if l.o.Landing.LandVerifyEach && len(l.o.Landing.LandVerify) > 0 {
			if v := l.verify(ctx); !v.Passed {
				if err := l.wt.ResetTo(ctx, good); err != nil {
					return good, nil, nil, nil, fmt.Errorf("land %s: undoing its merge: %w", r.ID, err)
				}
				stop.Kind, stop.Why = KindVerify, failed(l.o.Landing.LandVerify, v, "after merging "+r.Branch+" (the land task "+r.ID+")")
				l.stopBefore(ctx, stop, tasks)
				return good, nil, nil, nil, nil
			}
		}
		if good, err = l.wt.Head(ctx); err != nil {
			return good, nil, nil, nil, fmt.Errorf("land %s: %w", r.ID, err)
		}
		if l.o.Landing.LandVerifyEach || len(l.o.Landing.LandVerify) == 0 {
			l.good(good)
		}
		merged, branches = append(merged, r.ID), append(branches, r.Branch)
		for _, id := range strings.Split(r.Lands, ", ") {
			lands = addOnce(lands, id)
		}
		l.res.Resolutions = append(l.res.Resolutions, r.ID)
	}
	return good, merged, branches, lands, nil
}

// addOnce appends s to list unless it is there.
func addOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// backToGood moves the branch back to the head a land before this one left
// verified, when it is past it (a merge whose land_verify never ran).
func (l *lander) backToGood(ctx context.Context) error {
	if l.o.Good == "" {
		return nil
	}
	head, err := l.wt.Head(ctx)
	if err != nil || head == l.o.Good {
		return err
	}
	if on, err := l.repo.IsAncestor(ctx, l.o.Good, head); err != nil || !on {
		return err // not past it: moved by someone else, taken as it is
	}
	if mine, err := l.repo.OnlyWardens(ctx, l.o.Good, head); err != nil || !mine {
		return err // a person's commit on it: taken as it is
	}
	if l.o.Log != nil {
		l.o.Log.Warn("the integration branch is past its last verified head: merging again from there", "head", head, "good", l.o.Good)
	}
	return l.wt.ResetTo(ctx, l.o.Good)
}

// good records a head the land verified (or merged, with no land_verify).
func (l *lander) good(head string) {
	if l.o.OnGood != nil {
		l.o.OnGood(head)
	}
}

// on reports whether branch's head is an ancestor of commit (false when
// git cannot say).
func (l *lander) on(ctx context.Context, branch, commit string) bool {
	head, err := l.repo.BranchHead(ctx, branch)
	if err != nil {
		return false
	}
	ok, err := l.repo.IsAncestor(ctx, head, commit)
	return err == nil && ok
}

// stopBefore stops the land before the tasks' merges: the tasks already on
// the branch are landed (as before this land), the others wait.
func (l *lander) stopBefore(ctx context.Context, stop Wait, tasks []queue.Status) {
	head, err := l.wt.Head(ctx)
	var rest []queue.Status
	for _, t := range tasks {
		if err == nil && l.on(ctx, t.Branch, head) {
			l.res.Landed = append(l.res.Landed, Landed{Task: t.ID, Branch: t.Branch, Already: true})
			continue
		}
		rest = append(rest, t)
	}
	l.stop(stop, rest)
}
