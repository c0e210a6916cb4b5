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
