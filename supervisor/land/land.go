// Package land builds a team's integration branch, warden/{team}/landed
// (issue 37): from base, in a worktree of its own under the state dir, the
// complete tasks' branches merged in dependency order, the team's
// land_verify run after each merge or after the last; at the first
// conflict or failing verify it stops, that merge undone, and says what
// stopped it. base is moved only with land = "ff-base", and only as a
// fast-forward. A stopped land can be handed to an agent (land_by): the
// land task's worktree is made where it stopped (Handover, hand.go), and
// its resolution, once complete, is merged first when the land goes on
// (Options.Resolved).
//
// Every git call is the workspace package's (repository and work tree
// named, hooks and drivers off): a land never runs a command an agent
// wrote into a repository's configuration or attributes.
package land

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// Options is what a land needs.
type Options struct {
	Team string // names the branch: warden/{team}/landed
	// Path is the integration worktree (state.Layout.Land).
	Path    string
	Landing config.Landing
	// Tasks are the run's tasks as state.json has them, in the team file's
	// order.
	Tasks []queue.Status
	Git   *workspace.Git
	Log   hclog.Logger
	// Verify runs land_verify; nil: queue.VerifyWithin with no box.
	Verify func(ctx context.Context, argv []string, dir string, timeout time.Duration) queue.VerifyResult
	// Emit records an event (work_landed, land_stopped: task is the task
	// that stopped it); nil: none.
	Emit func(name, task string, kv ...any)
	// Resolved are the land tasks an agent completed, in the order they
	// were handed: each branch is merged before the tasks' (hand.go).
	Resolved []Resolution
	// Good is the integration branch's head a land before this one left
	// verified ("": none known); OnGood hears of each new one. A land that
	// finds the branch past Good (warden died between a merge and its
	// land_verify) goes back to Good and merges again.
	Good   string
	OnGood func(head string)
}

// Landed is a task on the integration branch.
type Landed struct {
	Task    string
	Branch  string
	Already bool // it was on the branch before this land
}

// Result is what a land did.
type Result struct {
	Branch, Base string
	Path         string
	Landed       []Landed
	Waits        []Wait
	// Resolutions are the land tasks whose work this land merged.
	Resolutions []string
	// Stop is what stopped the land (a conflict, a failing land_verify);
	// nil when every task that could land did.
	Stop *Wait
	// Verify says how land_verify went: "passed", "not set", "nothing new".
	Verify string
	// BaseMoved: base was fast-forwarded (ff-base); BaseNote why not.
	BaseMoved bool
	BaseNote  string
}

// LandedBranch is the team's integration branch.
func LandedBranch(team string) string { return "warden/" + team + "/landed" }

// Run lands o.Tasks. The error is a land that could not be made at all (no
// repository, a git call that failed); a conflict or a failing verify is
// Result.Stop.
func Run(ctx context.Context, o Options) (Result, error) {
	res := Result{Branch: LandedBranch(o.Team), Path: o.Path, Verify: "not set"}
	ready, waits := order(o.Tasks)
	res.Waits = waits
	if len(ready) == 0 {
		res.Verify = "nothing new"
		return res, nil
	}
	for _, t := range o.Tasks {
		if t.Branch == res.Branch {
			return res, fmt.Errorf("task %s's branch is %s, the integration branch's name: rename the task", t.ID, res.Branch)
		}
	}
	repo, err := o.Git.Find(ctx, ready[0].Repo)
	if err != nil {
		return res, fmt.Errorf("land: %w", err)
	}
	res.Base = ready[0].Base
	var same []queue.Status
	for _, t := range ready {
		if t.Repo != ready[0].Repo || t.Base != res.Base {
			res.Waits = append(res.Waits, Wait{Task: t.ID, Why: fmt.Sprintf("in %s from %s, not %s from %s", t.Repo, t.Base, ready[0].Repo, res.Base)})
			continue
		}
		same = append(same, t)
	}
	wt, err := repo.Prepare(ctx, o.Path, res.Branch, []string{res.Base})
	if err != nil {
		return res, fmt.Errorf("land: %w", err)
	}
	if err := wt.AbortMerge(ctx); err != nil { // warden died in the middle of one
		return res, fmt.Errorf("land: %w", err)
	}
	if changed, err := wt.Changed(ctx); err != nil {
		return res, fmt.Errorf("land: %w", err)
	} else if len(changed) > 0 {
		return res, fmt.Errorf("land: the integration worktree %s has changes (%s): commit or discard them first",
			wt.Path, strings.Join(changed, "; "))
	}
	l := lander{o: o, repo: repo, wt: wt, res: &res}
	if err := l.backToGood(ctx); err != nil {
		return res, err
	}
	if err := l.merge(ctx, same); err != nil {
		return res, err
	}
	l.finish(ctx)
	return res, nil
}

// lander is one land under way.
type lander struct {
	o    Options
	repo workspace.Repo
	wt   workspace.Worktree
	res  *Result
}

// merge merges base (a branch made earlier may lag behind it), then each
// task's branch, verifying after each with land_verify_each and else after
// the last; at the first conflict or failure it undoes that and stops.
func (l *lander) merge(ctx context.Context, tasks []queue.Status) error {
	res := l.res
	start, err := l.wt.Head(ctx)
	if err != nil {
		return fmt.Errorf("land: %w", err)
	}
	if err := l.wt.MergeBranch(ctx, res.Base); err != nil {
		var c *workspace.ConflictError
		if errors.As(err, &c) {
			l.stop(Wait{Task: "base", Kind: KindConflict, At: start, Merging: []string{res.Base}, Paths: c.Paths,
				Why: fmt.Sprintf("%s no longer merges into %s: conflict in %s", res.Base, res.Branch, strings.Join(c.Paths, ", "))}, tasks)
			return nil
		}
		return fmt.Errorf("land: %w", err)
	}
	good, err := l.wt.Head(ctx) // start, or base merged into it
	if err != nil {
		return fmt.Errorf("land: %w", err)
	}
	// merged: what this land merged, branches theirs, lands what each
	// resolves (a task its own id, a land task what it resolves): a last
	// land_verify that fails stops the land at lands, the same words for
	// the same stop whichever land task tried it.
	var merged, branches, lands []string
	if good, merged, branches, lands, err = l.resolutions(ctx, good, tasks); err != nil || res.Stop != nil {
		return err
	}
	for i, t := range tasks {
		head, err := l.repo.BranchHead(ctx, t.Branch)
		if err != nil {
			return fmt.Errorf("land %s: %w", t.ID, err)
		}
		if on, err := l.repo.IsAncestor(ctx, head, res.Branch); err != nil {
			return fmt.Errorf("land %s: %w", t.ID, err)
		} else if on {
			res.Landed = append(res.Landed, Landed{Task: t.ID, Branch: t.Branch, Already: true})
			continue
		}
		if err := l.wt.MergeBranch(ctx, t.Branch); err != nil {
			var c *workspace.ConflictError
			if errors.As(err, &c) {
				l.stop(Wait{Task: t.ID, Kind: KindConflict, At: good, Merging: []string{t.Branch}, Paths: c.Paths,
					Why: fmt.Sprintf("merging %s conflicts in %s", t.Branch, strings.Join(c.Paths, ", "))}, tasks[i+1:])
				return nil
			}
			// A merge git could not make (a merge driver warden turned
			// off, say): whatever it left is undone, and the land stops.
			if rerr := l.wt.ResetTo(ctx, good); rerr != nil {
				return fmt.Errorf("land %s: %w; undoing it: %w", t.ID, err, rerr)
			}
			l.stop(Wait{Task: t.ID, Kind: KindMerge, At: good, Why: fmt.Sprintf("merging %s failed: %v", t.Branch, err)}, tasks[i+1:])
			return nil
		}
		merged, branches, lands = append(merged, t.ID), append(branches, t.Branch), addOnce(lands, t.ID)
		if l.o.Landing.LandVerifyEach && len(l.o.Landing.LandVerify) > 0 {
			if v := l.verify(ctx); !v.Passed {
				if err := l.wt.ResetTo(ctx, good); err != nil {
					return fmt.Errorf("land %s: undoing its merge: %w", t.ID, err)
				}
				l.stop(Wait{Task: t.ID, Kind: KindVerify, At: good, Merging: []string{t.Branch},
					Why: failed(l.o.Landing.LandVerify, v, "after merging "+t.Branch)}, tasks[i+1:])
				return nil
			}
		}
		if good, err = l.wt.Head(ctx); err != nil {
			return fmt.Errorf("land %s: %w", t.ID, err)
		}
		if l.o.Landing.LandVerifyEach || len(l.o.Landing.LandVerify) == 0 {
			l.good(good)
		}
		res.Landed = append(res.Landed, Landed{Task: t.ID, Branch: t.Branch})
	}
	if len(l.o.Landing.LandVerify) == 0 || l.o.Landing.LandVerifyEach {
		if len(l.o.Landing.LandVerify) > 0 && len(merged) == 0 {
			res.Verify = "nothing new"
		}
		return nil
	}
	if len(merged) == 0 {
		res.Verify = "nothing new"
		return nil
	}
	if v := l.verify(ctx); !v.Passed {
		// Which merge broke it is not known: the branch goes back to where
		// this land found it, the last state that was verified.
		if err := l.wt.ResetTo(ctx, start); err != nil {
			return fmt.Errorf("land: undoing the merges of %s: %w", strings.Join(merged, ", "), err)
		}
		kept := res.Landed[:0]
		for _, d := range res.Landed {
			if d.Already && l.on(ctx, d.Branch, start) { // not merged by a resolution undone just now
				kept = append(kept, d)
			}
		}
		res.Landed, res.Resolutions = kept, nil
		l.stop(Wait{Task: strings.Join(lands, ", "), Kind: KindVerify, At: start, Merging: branches,
			Why: failed(l.o.Landing.LandVerify, v, "after merging "+strings.Join(merged, ", ")+" (set land_verify_each = true to find which)")}, nil)
		return nil
	}
	if head, err := l.wt.Head(ctx); err == nil {
		l.good(head)
	}
	return nil
}

// stop records what stopped the land; rest are the tasks that then wait.
func (l *lander) stop(w Wait, rest []queue.Status) {
	l.res.Stop = &w
	for _, t := range rest {
		l.res.Waits = append(l.res.Waits, Wait{Task: t.ID, Why: "not tried: the land stopped at " + w.Task})
	}
	l.emit(event.LandStopped, w.Task, "why", w.Why, "branch", l.res.Branch, "kind", w.Kind, "paths", w.Paths)
}
