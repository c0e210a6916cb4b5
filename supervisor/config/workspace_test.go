//go:build !e2e

package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// workspace = "worktree" needs the agent's dir in a git repository:
// validate says where, for the team key or an agent's own.
func TestWorktreeNeedsARepository(t *testing.T) {
	plain, repo := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(repo, "sub"), 0o700)
	cases := []struct{ src, want string }{
		{"name = \"t\"\nworkspace = \"worktree\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + plain + "\"\n",
			"t.toml:2:1: workspace = \"worktree\" needs a git repository, but the dir of agent a"},
		{"name = \"t\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + plain + "\"\nworkspace = \"worktree\"\n",
			"t.toml:6:1: workspace = \"worktree\" needs a git repository"},
		{"name = \"t\"\nworkspace = \"worktree\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + filepath.Join(repo, "sub") + "\"\n", ""},
		{"name = \"t\"\nworkspace = \"worktree\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + plain + "\"\nworkspace = \"shared\"\n", ""},
		{"name = \"t\"\nworkspace = \"tree\"\nmerge = \"rebase\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n",
			"t.toml:2:1: unknown workspace \"tree\" (want shared or worktree)\nt.toml:3:1: unknown merge \"rebase\""},
	}
	for _, c := range cases {
		_, err := Parse("t.toml", []byte(c.src))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s\n: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s\n: %v, want %q", c.src, err, c.want)
		}
	}
}

// In worktree mode a task's id names its branch and worktree: ids git
// refuses as a branch component (T..1, x.lock, .hidden, T1.) are errors at
// the id, with file:line:col; the same ids are fine for shared-mode agents.
func TestWorktreeTaskIDsMustBeBranchNames(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	head := "name = \"t\"\nworkspace = \"%s\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + repo + "\"\n"
	tasks := "[[task]]\nid = \"T..1\"\nprompt = \"p\"\n[[task]]\nid = \"x.lock\"\nprompt = \"p\"\n" +
		"[[task]]\nid = \"ok.1\"\nprompt = \"p\"\n[[task]]\nid = \".hidden\"\nprompt = \"p\"\n[[task]]\n  id = \"T1.\"\nprompt = \"p\"\n"
	_, err := Parse("t.toml", []byte(strings.Replace(head, "%s", "worktree", 1)+tasks))
	for _, want := range []string{
		`t.toml:8:1: task id "T..1" must not contain ".."`,
		`t.toml:11:1: task id "x.lock" must not end with ".lock"`,
		`t.toml:17:1: task id ".hidden" must not start with '.'`,
		`t.toml:20:3: task id "T1." must not end with '.'`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("worktree mode: %v\nwant %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "ok.1") {
		t.Errorf("ok.1 refused: %v", err)
	}
	if _, err := Parse("t.toml", []byte(strings.Replace(head, "%s", "shared", 1)+tasks)); err != nil {
		t.Errorf("shared mode: %v", err)
	}
}
