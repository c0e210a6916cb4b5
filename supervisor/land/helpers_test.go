//go:build !e2e

package land

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// TestMain keeps the tests away from the user's git configuration.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "land-home-")
	if err != nil {
		panic(err)
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "GIT_") {
			os.Unsetenv(name)
		}
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// gitT runs git in dir for the test's own setup and checks.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=tester", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=tester", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
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

// night is a repository on main (a.txt) and the state dir of a team "t".
type night struct {
	root, state string
	tasks       []queue.Status
}

func newNight(t *testing.T) *night {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := &night{root: filepath.Join(dir, "repo"), state: filepath.Join(dir, "state dir")}
	gitT(t, dir, "init", "--quiet", "-b", "main", n.root)
	write(t, filepath.Join(n.root, "a.txt"), "one\ntwo\nthree\nfour\nfive\n")
	gitT(t, n.root, "add", "-A")
	gitT(t, n.root, "commit", "--quiet", "-m", "initial")
	if err := os.MkdirAll(n.state, 0o700); err != nil {
		t.Fatal(err)
	}
	return n
}

// task makes the complete task id on branch warden/t/{id} from from,
// with files written and committed, as an agent's worktree would have.
func (n *night) task(t *testing.T, id, from string, files map[string]string, blockedBy ...string) {
	t.Helper()
	branch := "warden/t/" + id
	gitT(t, n.root, "branch", branch, from)
	wt := filepath.Join(filepath.Dir(n.root), "wt-"+id)
	gitT(t, n.root, "worktree", "add", "--quiet", wt, branch)
	for name, content := range files {
		write(t, filepath.Join(wt, name), content)
	}
	gitT(t, wt, "add", "-A")
	gitT(t, wt, "commit", "--quiet", "-m", id)
	gitT(t, n.root, "worktree", "remove", wt)
	n.tasks = append(n.tasks, queue.Status{ID: id, State: queue.Complete, Branch: branch, Base: "main",
		Repo: n.root, BlockedBy: blockedBy})
}

// land runs a land of the night's tasks.
func (n *night) land(t *testing.T, l config.Landing) (Result, []string) {
	t.Helper()
	var events []string
	res, err := Run(context.Background(), Options{
		Team: "t", Path: filepath.Join(n.state, "land"), Landing: l, Tasks: n.tasks,
		Git:  workspace.New(hclog.NewNullLogger()),
		Emit: func(name, _ string, kv ...any) { events = append(events, name) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, events
}

// landedTasks is the ids of res.Landed.
func landedTasks(res Result) string {
	var ids []string
	for _, d := range res.Landed {
		ids = append(ids, d.Task)
	}
	return strings.Join(ids, " ")
}

// assertClean fails unless the integration worktree has no change.
func (n *night) assertClean(t *testing.T) {
	t.Helper()
	if st := gitT(t, filepath.Join(n.state, "land"), "status", "--porcelain"); st != "" {
		t.Errorf("the integration worktree is not clean:\n%s", st)
	}
}
