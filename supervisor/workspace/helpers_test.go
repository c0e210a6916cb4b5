package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// TestMain marks this process so that internal/proctest finds every process
// a git call or an agent leaves behind, and keeps the tests away from the user's git
// configuration (a HOME of their own, no system config, no repository
// found above the temp dir).
func TestMain(m *testing.M) {
	fakeagent.Main() // the test binary is also the hostile agent (mode gitattack)
	home, err := os.MkdirTemp("", "workspace-home-")
	if err != nil {
		panic(err)
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "GIT_") {
			os.Unsetenv(name)
		}
	}
	os.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid()))
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// testIdentity is who the tests' own commits are by.
var testIdentity = []string{"GIT_AUTHOR_NAME=tester", "GIT_AUTHOR_EMAIL=tester@example.com",
	"GIT_COMMITTER_NAME=tester", "GIT_COMMITTER_EMAIL=tester@example.com"}

// gitT runs git in dir for the test's own setup and checks; it fails the
// test on error and returns stdout trimmed.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitTry(dir, args...)
	if err != nil {
		t.Fatalf("git %s (in %s): %v", strings.Join(args, " "), dir, err)
	}
	return out
}

func gitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testIdentity...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", &Error{Args: args, Dir: dir, Stderr: stderr.String(), Err: err}
	}
	return strings.TrimSpace(string(out)), nil
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// newRepo makes a repository on branch main with a.txt committed, and
// returns its (symlink-free) root.
func newRepo(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(root, "repo")
	gitT(t, filepath.Dir(root), "init", "--quiet", "-b", "main", root)
	write(t, filepath.Join(root, "a.txt"), "one\ntwo\nthree\n")
	commitAll(t, root, "initial")
	return root
}

// commitAll commits everything in dir as the tester.
func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "--quiet", "-m", msg)
	return gitT(t, dir, "rev-parse", "HEAD")
}

// driver returns a git driver whose test fails if a process is left behind.
func driver(t testing.TB) *Git {
	t.Helper()
	t.Cleanup(func() { proctest.AssertNone(t) })
	return New(nullLogger())
}

// find is Find that fails the test on error.
func find(t testing.TB, g *Git, dir string) Repo {
	t.Helper()
	r, err := g.Find(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// prepare is Prepare that fails the test on error.
func prepare(t testing.TB, r Repo, path, branch string, from ...string) Worktree {
	t.Helper()
	w, err := r.Prepare(context.Background(), path, branch, from)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// commit is Commit that fails the test on error.
func commit(t testing.TB, w Worktree, subject string) (string, bool) {
	t.Helper()
	c, made, err := w.Commit(context.Background(), subject, "")
	if err != nil {
		t.Fatal(err)
	}
	return c, made
}

// wtPath is where a task's worktree goes in a test: a state dir apart
// from the repository, whose path has a space and a non-ASCII letter.
func wtPath(t testing.TB, task string) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "state dir é", "worktrees", task)
}

func nullLogger() hclog.Logger { return hclog.NewNullLogger() }

// sparse makes a file of size bytes that takes no room on disk.
func sparse(t testing.TB, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// markerScript writes a program that appends a line to marker when it runs
// and copies its input to its output (a working filter), and returns its
// path and marker's.
func markerScript(t *testing.T) (script, marker string) {
	t.Helper()
	dir := t.TempDir()
	marker = filepath.Join(dir, "ran")
	script = filepath.Join(dir, "driver.sh")
	write(t, script, "#!/bin/sh\necho \"ran: $*\" >> '"+marker+"'\nexec cat\n")
	os.Chmod(script, 0o755)
	return script, marker
}

// configureDrivers defines, in the user's global configuration and in the
// repository's, filter, merge and diff drivers that run the script: what a
// user with git-lfs (a filter.lfs.process driver) or a merge tool has.
func configureDrivers(t *testing.T, root, script string) {
	t.Helper()
	for _, scope := range []string{"--global", "--local"} {
		for _, kv := range [][2]string{
			{"filter.lfs.clean", script + " %f"}, {"filter.lfs.smudge", script + " %f"},
			{"filter.lfs.process", script}, {"filter.lfs.required", "true"},
			{"filter.My.Dotted.clean", script}, {"merge.mine.driver", script + " %O %A %B"},
			{"diff.mine.textconv", script}, {"diff.mine.command", script},
		} {
			gitT(t, root, "config", scope, kv[0], kv[1])
		}
	}
}

func assertNothingMade(t *testing.T, r Repo, root, path, branch string) {
	t.Helper()
	if exists(path) {
		t.Errorf("%s was left behind", path)
	}
	if ok, err := r.BranchExists(context.Background(), branch); ok || err != nil {
		t.Errorf("branch %s left behind (%v)", branch, err)
	}
	if list := gitT(t, root, "worktree", "list", "--porcelain"); strings.Contains(list, path) {
		t.Errorf("worktree still registered:\n%s", list)
	}
}
