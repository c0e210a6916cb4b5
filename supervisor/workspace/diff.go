package workspace

import (
	"context"
	"errors"
	"fmt"
)

// MaxDiff bounds the diff a review request carries: past it the diff is
// cut, and the request says so.
const MaxDiff = 60_000

// Diff is what branch changed since it left base: `git diff
// base...branch` (from their merge base, the commit the task's worktree
// started from), never through an external diff driver or a textconv
// filter the repository's configuration names. cut reports a diff longer
// than max, cut there.
func (r Repo) Diff(ctx context.Context, base, branch string, max int) (diff string, cut bool, err error) {
	if err := errors.Join(checkRef("base", base), checkRef("branch", branch)); err != nil {
		return "", false, err
	}
	out, err := r.run(ctx, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--stat", "--patch",
		"refs/heads/"+base+"...refs/heads/"+branch, "--")
	if err != nil {
		return "", false, fmt.Errorf("the diff of %s since %s: %w", branch, base, err)
	}
	if max > 0 && len(out) > max {
		return out[:max], true, nil
	}
	return out, false, nil
}
