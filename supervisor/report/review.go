package report

import (
	"fmt"

	"github.com/wardenhq/warden/supervisor/event"
)

// Review is a complete task whose work waits for a person (the handoff's
// Review section says the same): on a branch of its own (worktree mode)
// not merged into its base, with the last commit warden made of its work;
// or, in a shared workspace, in the agent's directory (Branch empty).
type Review struct {
	Task   string `json:"task"`
	Branch string `json:"branch,omitempty"`
	Base   string `json:"base,omitempty"`
	// Commit: the last commit warden made on Branch in this run
	// (work_committed); "" when it made none in this run.
	Commit string `json:"commit,omitempty"`
	Agent  string `json:"agent,omitempty"`
}

// branchOf notes what the run's work_committed and work_merged say of a
// task's branch: its last commit, and whether it went into its base.
func (b *builder) branchOf(e *ev) {
	i, ok := b.tasks[e.Task]
	if !ok || e.Task == "" {
		return
	}
	w := b.work[i]
	switch e.Event {
	case event.WorkCommitted:
		w.commit = plain(e.Commit)
		if e.Branch != "" {
			w.branch = plain(e.Branch)
		}
	case event.WorkMerged:
		w.merged = true
	}
	b.work[i] = w
}

// taskWork is what the events say of one task's branch.
type taskWork struct {
	branch, commit string
	merged         bool
}

// reviews lists the complete tasks whose work waits for a review, in the
// team file's order: state.json's branch and base, the events' last commit;
// a task fast-forwarded into its base (merge = "ff") waits for nobody.
func (b *builder) reviews() []Review {
	out := []Review{}
	for i, t := range b.r.Tasks {
		if t.State != "complete" {
			continue
		}
		w := b.work[i]
		if w.merged {
			continue
		}
		rv := Review{Task: t.ID, Branch: t.Branch, Base: t.Base, Commit: w.commit, Agent: t.Owner}
		if rv.Branch == "" {
			rv.Branch = w.branch
		}
		out = append(out, rv)
	}
	return out
}

// reviewSection names the branches waiting for review, each with its last
// commit, and the shared workspace's complete tasks.
func reviewSection(p *page, r *Report) {
	if len(r.Review) == 0 {
		return
	}
	p.heading("Waiting for your review: %s", plural(len(r.Review), "task"))
	for _, rv := range r.Review {
		switch {
		case rv.Branch == "":
			p.line(4, "- %s: in the agent's directory (a shared workspace)", p.esc(rv.Task))
		default:
			commit := "no commit by warden in this run"
			if rv.Commit != "" {
				commit = "last commit " + p.esc(shortCommit(rv.Commit))
			}
			base := ""
			if rv.Base != "" {
				base = fmt.Sprintf(", to merge into %s", p.esc(rv.Base))
			}
			p.line(4, "- %s: branch %s, %s%s", p.esc(rv.Task), p.esc(rv.Branch), commit, base)
		}
	}
}

// shortCommit is a commit's first 12 hex digits.
func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
