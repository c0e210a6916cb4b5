package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrCheckedOut: FastForward did not move base because a worktree (the
// user's own checkout, usually) has it checked out; moving it would change
// that checkout's files under its owner.
var ErrCheckedOut = errors.New("checked out")

// ErrNotFastForward: base has commits the branch does not have.
var ErrNotFastForward = errors.New("not a fast-forward")

// FastForward moves base to branch's head when that is a fast-forward,
// without touching any checkout: when base is checked out in some worktree
// it is not moved (the error wraps ErrCheckedOut), and when base has
// commits branch lacks the error wraps ErrNotFastForward. The ref is moved
// with `git update-ref` against its old value, so a base that moved in the
// meantime is not overwritten. Nothing to do when base is already there.
func (r Repo) FastForward(ctx context.Context, base, branch string) error {
	if err := errors.Join(checkRef("base", base), checkRef("branch", branch)); err != nil {
		return err
	}
	what := fmt.Sprintf("fast-forwarding %s to %s", base, branch)
	out, err := r.run(ctx, "rev-parse", "refs/heads/"+base+"^{commit}", "refs/heads/"+branch+"^{commit}", "--")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	shas := lines(out) // the two commits, then the "--" echoed
	if len(shas) < 2 {
		return fmt.Errorf("%s: git rev-parse printed %q", what, out)
	}
	from, to := shas[0], shas[1]
	if from == to {
		return nil
	}
	if _, err := r.run(ctx, "merge-base", "--is-ancestor", from, to); err != nil {
		if exitCode(err) == 1 {
			return fmt.Errorf("%s: %w (%s has commits %s does not)", what, ErrNotFastForward, base, branch)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	list, err := r.worktrees(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for _, w := range list {
		if w.Branch == base {
			return fmt.Errorf("%s: %s is %w in %s; not moved (merge it there: git merge --ff-only %s)",
				what, base, ErrCheckedOut, w.Path, branch)
		}
	}
	msg := "warden: fast-forward " + base + " to " + branch
	if _, err := r.run(ctx, "update-ref", "-m", msg, "refs/heads/"+base, to, from); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	r.git.log.Info("fast-forwarded", "base", base, "branch", branch, "from", short(from), "to", short(to))
	return nil
}

// short is a commit's abbreviation for logs.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return strings.TrimSpace(sha)
}
