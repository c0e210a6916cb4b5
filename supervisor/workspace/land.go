package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// The integration branch (issue 37's land): a worktree of its own on
// warden/{team}/landed, made with Prepare from base, into which the
// complete tasks' branches are merged one by one (MergeBranch); a merge
// that conflicts is aborted there, and one whose land_verify fails is
// undone with ResetTo. Every call is warden's git as everywhere in this
// package: the repository and work tree named, hooks and every driver off.

// MergeBranch merges the branch into the worktree's branch (a fast-forward
// when it can be, else a merge commit by warden). A conflict is aborted —
// the worktree is back at its head, clean — and the error is a
// *ConflictError naming the conflicting paths.
func (w Worktree) MergeBranch(ctx context.Context, branch string) error {
	if err := checkRef("branch", branch); err != nil {
		return err
	}
	if err := w.Verify(); err != nil {
		return fmt.Errorf("merging %s into %s: %w", branch, w.Branch, err)
	}
	shas, err := w.repo.resolve(ctx, []string{"refs/heads/" + branch})
	if err != nil {
		return fmt.Errorf("merging %s into %s: %w", branch, w.Branch, err)
	}
	return w.merge(ctx, w.Branch, branch, shas[0])
}

// ResetTo moves the worktree's branch back to commit and its files with it
// (git reset --hard; files git does not track are left). Every driver is
// off: the files checked out are the agents' work, their attributes theirs.
func (w Worktree) ResetTo(ctx context.Context, commit string) error {
	if err := checkRef("commit", commit); err != nil {
		return err
	}
	if err := w.Verify(); err != nil {
		return fmt.Errorf("resetting %s to %s: %w", w.Branch, short(commit), err)
	}
	off, err := w.git.driversOff(ctx, w.site(nil))
	if err != nil {
		return fmt.Errorf("resetting %s to %s: %w", w.Branch, short(commit), err)
	}
	if _, err := w.run(context.WithoutCancel(ctx), off, "", "reset", "--hard", "--quiet", commit); err != nil {
		return fmt.Errorf("resetting %s to %s: %w", w.Branch, short(commit), err)
	}
	return nil
}

// Changed lists what `git status` says differs in the worktree from its
// head (tracked changes and files git does not ignore), one line each;
// none when it is clean.
func (w Worktree) Changed(ctx context.Context) ([]string, error) {
	if err := w.Verify(); err != nil {
		return nil, fmt.Errorf("the status of worktree %s: %w", w.Path, err)
	}
	off, err := w.git.driversOff(ctx, w.site(nil))
	if err != nil {
		return nil, fmt.Errorf("the status of worktree %s: %w", w.Path, err)
	}
	out, err := w.run(ctx, off, "", "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, fmt.Errorf("the status of worktree %s: %w", w.Path, err)
	}
	return lines(out), nil
}

// IsAncestor reports whether commit a is an ancestor of b (or b itself).
func (r Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	if err := errors.Join(checkRef("commit", a), checkRef("commit", b)); err != nil {
		return false, err
	}
	_, err := r.run(ctx, "merge-base", "--is-ancestor", a, b)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, fmt.Errorf("is %s an ancestor of %s: %w", a, b, err)
}

// BranchHead is the commit branch is at.
func (r Repo) BranchHead(ctx context.Context, branch string) (string, error) {
	if err := checkRef("branch", branch); err != nil {
		return "", err
	}
	shas, err := r.resolve(ctx, []string{"refs/heads/" + branch})
	if err != nil {
		return "", fmt.Errorf("the head of branch %s: %w", branch, err)
	}
	return strings.TrimSpace(shas[0]), nil
}
