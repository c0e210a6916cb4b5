//go:build e2e

package supervisor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
)

// gitRepo makes a repository with one commit on main, and returns its dir
// and a function that runs git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "README"), []byte("the user's file\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".warden/\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	return repo, git
}

// worktreeTeam is a team of two workers in repo, each task in a worktree of
// its own; each answer appends a line to shared.txt.
func worktreeTeam(t *testing.T, repo, extra, tasks string) *teamFile {
	t.Helper()
	cfg := writeTeam(t, fastTimers+`workspace = "worktree"
`+extra+tasks, fakeAgent{name: "w1", mode: "worker:steps=2:write=shared.txt", dir: repo},
		fakeAgent{name: "w2", mode: "worker:steps=2:write=shared.txt", dir: repo})
	cfg.StateDir = filepath.Join(repo, ".warden")
	cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	return &teamFile{cfg}
}

// teamFile is a loaded team file a test changed after loading.
type teamFile struct{ cfg *config.Team }

// Two agents edit the same file at once, each on its task's branch, in its
// own worktree; every checkpoint's work is committed (work_committed), the
// user's checkout is never touched, and a task blocked by another starts
// from its branch and sees its work.
func TestWorktreesIsolateTasksAndCommitTheirWork(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	tf := worktreeTeam(t, repo, "", `[[task]]
id = "T1"
prompt = "One."
[[task]]
id = "T2"
prompt = "Two."
[[task]]
id = "T3"
prompt = "Three."
blocked_by = ["T1"]
`)
	res, stdout, _ := runTeam(t, tf.cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d: %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	team := tf.cfg.Name
	for _, task := range []string{"T1", "T2"} {
		got := git("show", "warden/"+team+"/"+task+":shared.txt")
		if got != task+" step 1\n"+task+" step 2" && got != strings.TrimSpace(task+" step 1\n"+task+" step 2\n") {
			t.Errorf("%s's branch holds %q", task, got)
		}
	}
	if got := git("show", "warden/"+team+"/T3:shared.txt"); !strings.HasPrefix(got, "T1 step 1\nT1 step 2\nT3 step 1") {
		t.Errorf("T3 did not start from T1's work: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "shared.txt")); err == nil || git("status", "--porcelain") != "" {
		t.Errorf("the user's checkout was touched: %s", git("status", "--porcelain"))
	}
	if got := git("log", "-1", "--format=%an %s", "warden/"+team+"/T2~1"); !strings.HasPrefix(got, "warden T2: implementing (50%)") {
		t.Errorf("commit of a checkpoint: %q", got)
	}
	if n := countEvents(eventsOf(t, tf.cfg), event.WorkCommitted, ""); n < 4 {
		t.Errorf("%d work_committed events", n)
	}
}

// Two dependencies whose branches conflict leave the task that needs both
// blocked (task_blocked with the path), not a broken tree.
func TestConflictingDependenciesBlockTheTask(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	tf := worktreeTeam(t, repo, "", `[[task]]
id = "T1"
prompt = "One."
[[task]]
id = "T2"
prompt = "Two."
[[task]]
id = "T3"
prompt = "Both."
blocked_by = ["T1", "T2"]
`)
	res, stdout, _ := runTeam(t, tf.cfg, 60*time.Second)
	if res.ExitCode() != 1 || res.Tasks[2].State != queue.Blocked {
		t.Fatalf("exit %d, tasks %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	e := firstEvent(eventsOf(t, tf.cfg), event.TaskBlocked)
	if e == nil || e["task"] != "T3" || !strings.Contains(e["reason"].(string), "shared.txt") {
		t.Errorf("task_blocked %v", e)
	}
	if _, err := os.Stat(filepath.Join(tf.cfg.StateDir, "worktrees", "T3")); err == nil {
		t.Error("a half-made worktree of T3 is left")
	}
	if strings.Contains(git("branch", "--list"), "T3") {
		t.Error("a branch of T3 is left")
	}
}

// merge = "ff" fast-forwards base to a completed task's branch when base is
// not checked out; warden clean removes completed tasks' worktrees and
// keeps their branches.
func TestMergeFastForwardAndClean(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	git("checkout", "-q", "-b", "dev") // the user works elsewhere: main may move
	tf := worktreeTeam(t, repo, "base = \"main\"\nmerge = \"ff\"\n", `[[task]]
id = "T1"
prompt = "One."
`)
	res, stdout, _ := runTeam(t, tf.cfg, 60*time.Second)
	if res.ExitCode() != 0 || !strings.Contains(stdout, "MERGED: T1") {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if git("rev-parse", "main") != git("rev-parse", "warden/"+tf.cfg.Name+"/T1") {
		t.Error("main was not fast-forwarded")
	}
	removed, err := Clean(testLogger(t), tf.cfg.StateDir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("Clean = %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(tf.cfg.StateDir, "worktrees", "T1")); err == nil {
		t.Error("the worktree is still there")
	}
	if !strings.Contains(git("branch", "--list"), "warden/"+tf.cfg.Name+"/T1") {
		t.Error("clean removed the branch")
	}
}
