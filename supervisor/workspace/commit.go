package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
)

// lockRetry is how long Commit waits between attempts while another git
// (the agent's own, usually) holds the worktree's index lock, and
// lockAttempts how many attempts it makes.
const (
	lockRetry    = 100 * time.Millisecond
	lockAttempts = 5
)

func (w Worktree) run(ctx context.Context, off []string, stdin string, args ...string) (string, error) {
	return w.git.run(ctx, w.site(off), stdin, args...)
}

// Head is the commit the worktree's HEAD names.
func (w Worktree) Head(ctx context.Context) (string, error) {
	if err := w.Verify(); err != nil {
		return "", fmt.Errorf("the head of worktree %s: %w", w.Path, err)
	}
	out, err := w.run(ctx, nil, "", "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("the head of worktree %s: %w", w.Path, err)
	}
	return strings.TrimSpace(out), nil
}

// Committed is what a commit of the worktree did.
type Committed struct {
	Commit string // the branch's head afterwards
	Made   bool   // false: there was nothing to commit
	// Skipped are the files left out, each larger than MaxFileSize; the
	// commit's message names them.
	Skipped []BigFile
}

// Commit commits everything changed in the worktree (CommitFiles) and
// returns the branch's head afterwards; made is false when there was
// nothing to commit.
func (w Worktree) Commit(ctx context.Context, subject, body string) (commit string, made bool, err error) {
	c, err := w.CommitFiles(ctx, subject, body)
	return c.Commit, c.Made, err
}

// CommitFiles commits everything changed in the worktree (`git add -A`:
// new, changed and deleted files; what .gitignore names stays out, and so
// does every file larger than MaxFileSize) to its branch, authored by
// warden, without hooks, signing, filters or any other program git could
// run. A worktree that is no longer the one warden made (Verify), that is
// not on its branch, or is in the middle of a merge, rebase, cherry-pick or
// revert (the agent's own git at work), is not committed: an error says why
// (a *RefusedError for the first).
//
// The commit is made with plumbing (write-tree, commit-tree, update-ref
// against the branch's old head): `git commit` would stat and rewrite the
// whole index a second time. When the agent's own git commits in between,
// update-ref refuses and the commit starts over once. The commit made is
// checked to be on the branch in the user's repository before it is
// returned.
func (w Worktree) CommitFiles(ctx context.Context, subject, body string) (Committed, error) {
	what := fmt.Sprintf("committing worktree %s to %s", w.Path, w.Branch)
	if err := w.Verify(); err != nil {
		return Committed{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := w.committable(); err != nil {
		return Committed{}, fmt.Errorf("%s: %w", what, err)
	}
	off, err := w.git.driversOff(ctx, w.site(nil))
	if err != nil {
		return Committed{}, fmt.Errorf("%s: %w", what, err)
	}
	var c Committed
	for attempt := 1; ; attempt++ {
		c, err = w.commitOnce(ctx, off, subject, body)
		if err == nil || attempt == 2 || !strings.Contains(err.Error(), "but expected") {
			break
		}
	}
	if err == nil && c.Made {
		err = w.onBranch(ctx, c.Commit)
	}
	if err != nil {
		return Committed{}, fmt.Errorf("%s: %w", what, err)
	}
	if c.Made {
		w.git.log.Debug("work committed", "path", w.Path, "branch", w.Branch, "commit", short(c.Commit))
	}
	return c, nil
}

func (w Worktree) commitOnce(ctx context.Context, off []string, subject, body string) (Committed, error) {
	big, err := w.bigFiles(ctx, off)
	if err != nil {
		return Committed{}, err
	}
	if err := w.add(ctx, off, big); err != nil {
		return Committed{}, err
	}
	tree, err := w.retryLocked(ctx, off, "", "write-tree")
	if err != nil {
		return Committed{}, err
	}
	ref := "refs/heads/" + w.Branch
	out, err := w.run(ctx, off, "", "rev-parse", ref, ref+"^{tree}", "--")
	if err != nil {
		return Committed{}, err
	}
	parent := lines(out) // commit, tree, then the "--" echoed
	if len(parent) < 2 {
		return Committed{}, fmt.Errorf("reading %s: git rev-parse printed %q", ref, out)
	}
	if strings.TrimSpace(tree) == parent[1] {
		return Committed{Commit: parent[0], Skipped: big}, nil
	}
	msg := message(subject, body, big)
	out, err = w.run(ctx, off, msg, "commit-tree", "--no-gpg-sign", strings.TrimSpace(tree), "-p", parent[0], "-F", "-")
	if err != nil {
		return Committed{}, err
	}
	commit := strings.TrimSpace(out)
	if _, err := w.run(ctx, off, "", "update-ref", "-m", "commit: "+protocol.FirstLine(msg), ref, commit, parent[0]); err != nil {
		return Committed{}, err
	}
	return Committed{Commit: commit, Made: true, Skipped: big}, nil
}

// message is a commit's message: the subject on one line, the body, and
// the files left out.
func message(subject, body string, big []BigFile) string {
	subject = strings.Join(strings.Fields(subject), " ")
	if subject == "" {
		subject = "warden: work in progress"
	}
	msg := subject + "\n"
	if body = strings.TrimSpace(body); body != "" {
		msg += "\n" + body + "\n"
	}
	if len(big) > 0 {
		msg += "\nLeft out (larger than " + Size(MaxFileSize) + ", still in the worktree):\n"
		for _, f := range big {
			msg += "- " + f.Path + " (" + Size(f.Size) + ")\n"
		}
	}
	return msg
}

// onBranch checks that commit is on the worktree's branch in the user's
// repository (asked there, not in the worktree): what work_committed names
// is always in the task's repository, on its branch.
func (w Worktree) onBranch(ctx context.Context, commit string) error {
	if _, err := w.repo.run(ctx, "merge-base", "--is-ancestor", commit, "refs/heads/"+w.Branch); err != nil {
		return fmt.Errorf("commit %s is not on branch %s of %s: %w", short(commit), w.Branch, w.repo.Root, err)
	}
	return nil
}

// committable checks, reading the admin dir without a subprocess, that the
// worktree is on its branch and that no operation of the agent's own git
// is under way in it.
func (w Worktree) committable() error {
	head, err := readSmall(filepath.Join(w.admin, "HEAD"))
	if err != nil {
		return fmt.Errorf("reading HEAD: %w", err)
	}
	if ref, ok := strings.CutPrefix(head, "ref: "); !ok || ref != "refs/heads/"+w.Branch {
		return fmt.Errorf("the worktree is on %s, not on its branch; not committed", head)
	}
	for _, op := range []struct{ file, name string }{
		{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	} {
		if _, err := os.Lstat(filepath.Join(w.admin, op.file)); err == nil {
			return fmt.Errorf("a %s is under way in the worktree; not committed", op.name)
		}
	}
	return nil
}

// retryLocked runs git, again while the failure is another git's
// index.lock, lockAttempts times at most.
func (w Worktree) retryLocked(ctx context.Context, off []string, stdin string, args ...string) (string, error) {
	for i := 1; ; i++ {
		out, err := w.run(ctx, off, stdin, args...)
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
