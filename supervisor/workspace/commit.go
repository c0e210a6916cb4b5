package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// lockRetry is how long Commit waits between attempts while another git
// (the agent's own, usually) holds the worktree's index lock, and
// lockAttempts how many attempts it makes.
const (
	lockRetry    = 100 * time.Millisecond
	lockAttempts = 5
)

func (w Worktree) run(ctx context.Context, stdin string, args ...string) (string, error) {
	return w.git.run(ctx, w.Path, stdin, args...)
}

// Head is the commit the worktree's HEAD names.
func (w Worktree) Head(ctx context.Context) (string, error) {
	out, err := w.run(ctx, "", "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("the head of worktree %s: %w", w.Path, err)
	}
	return strings.TrimSpace(out), nil
}

// Commit commits everything changed in the worktree (`git add -A`: new,
// changed and deleted files; what .gitignore names stays out) to its
// branch, authored by warden, without hooks or signing. commit is the
// branch's head afterwards; made is false when there was nothing to commit.
// A worktree that is not on its branch, or in the middle of a merge,
// rebase, cherry-pick or revert (the agent's own git at work), is not
// committed: an error says why.
//
// The commit is made with plumbing (write-tree, commit-tree, update-ref
// against the branch's old head): `git commit` would stat and rewrite the
// whole index a second time. When the agent's own git commits in between,
// update-ref refuses and Commit starts over once.
func (w Worktree) Commit(ctx context.Context, subject, body string) (commit string, made bool, err error) {
	what := fmt.Sprintf("committing worktree %s to %s", w.Path, w.Branch)
	if err := w.committable(); err != nil {
		return "", false, fmt.Errorf("%s: %w", what, err)
	}
	for attempt := 1; ; attempt++ {
		commit, made, err = w.commitOnce(ctx, subject, body)
		if err == nil || attempt == 2 || !strings.Contains(err.Error(), "but expected") {
			break
		}
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", what, err)
	}
	if made {
		w.git.log.Debug("work committed", "path", w.Path, "branch", w.Branch, "commit", short(commit))
	}
	return commit, made, nil
}

func (w Worktree) commitOnce(ctx context.Context, subject, body string) (string, bool, error) {
	if _, err := w.retryLocked(ctx, "", "add", "-A"); err != nil {
		return "", false, err
	}
	tree, err := w.retryLocked(ctx, "", "write-tree")
	if err != nil {
		return "", false, err
	}
	ref := "refs/heads/" + w.Branch
	out, err := w.run(ctx, "", "rev-parse", ref, ref+"^{tree}", "--")
	if err != nil {
		return "", false, err
	}
	parent := lines(out) // commit, tree, then the "--" echoed
	if len(parent) < 2 {
		return "", false, fmt.Errorf("reading %s: git rev-parse printed %q", ref, out)
	}
	if strings.TrimSpace(tree) == parent[1] {
		return parent[0], false, nil
	}
	subject = strings.Join(strings.Fields(subject), " ")
	if subject == "" {
		subject = "warden: work in progress"
	}
	msg := subject + "\n"
	if body = strings.TrimSpace(body); body != "" {
		msg += "\n" + body + "\n"
	}
	out, err = w.run(ctx, msg, "commit-tree", "--no-gpg-sign", strings.TrimSpace(tree), "-p", parent[0], "-F", "-")
	if err != nil {
		return "", false, err
	}
	commit := strings.TrimSpace(out)
	if _, err := w.run(ctx, "", "update-ref", "-m", "commit: "+subject, ref, commit, parent[0]); err != nil {
		return "", false, err
	}
	return commit, true, nil
}

// committable checks, reading .git without a subprocess, that the worktree
// is on its branch and that no operation of the agent's own git is under
// way in it.
func (w Worktree) committable() error {
	gitDir := findGitDir(w.Path)
	if gitDir == "" {
		return fmt.Errorf("%w (no .git in %s)", ErrNotRepo, w.Path)
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return fmt.Errorf("reading HEAD: %w", err)
	}
	h := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(h, "ref: "); !ok || ref != "refs/heads/"+w.Branch {
		return fmt.Errorf("the worktree is on %s, not on its branch; not committed", h)
	}
	for _, op := range []struct{ file, name string }{
		{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	} {
		if _, err := os.Lstat(filepath.Join(gitDir, op.file)); err == nil {
			return fmt.Errorf("a %s is under way in the worktree; not committed", op.name)
		}
	}
	return nil
}

// retryLocked runs git, again while the failure is another git's
// index.lock, lockAttempts times at most.
func (w Worktree) retryLocked(ctx context.Context, stdin string, args ...string) (string, error) {
	for i := 1; ; i++ {
		out, err := w.run(ctx, stdin, args...)
		if err == nil || i == lockAttempts || !strings.Contains(err.Error(), "index.lock") {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(lockRetry):
		}
	}
}
