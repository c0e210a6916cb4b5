//go:build e2e

package supervisor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// Hostile agents against warden's git (issue 22, item 1 and 8): a team of
// one agent, a real process (the fake agent's gitattack mode), plants an
// attack in its task's worktree and then works; warden runs as it does at
// night.

// hostileGitTeam is a worktree-mode team in repo: agent w1 in mode, task
// T1, restarted on failure twice at the most.
func hostileGitTeam(t *testing.T, repo, mode string) *config.Team {
	t.Helper()
	cfg := writeTeam(t, fastTimers+"workspace = \"worktree\"\n[[task]]\nid = \"T1\"\nprompt = \"One.\"\n",
		fakeAgent{name: "w1", mode: mode, dir: repo, restart: "on-failure", maxRestarts: 2})
	cfg.StateDir = filepath.Join(repo, ".warden")
	cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	return cfg
}

// refusedEvent checks there is a worktree_refused event of T1 whose reason
// says why, and a WARNING line saying the worktree is not warden's.
func refusedEvent(t *testing.T, cfg *config.Team, stdout, why string) {
	t.Helper()
	e := firstEvent(eventsOf(t, cfg), event.WorktreeRefused)
	if e == nil || e["task"] != "T1" || !strings.Contains(e["reason"].(string), why) {
		t.Errorf("worktree_refused = %v, want one of T1 saying %q", e, why)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "WARNING: ") && strings.Contains(line, "is not the one warden made (") && strings.Contains(line, why) {
			return
		}
	}
	t.Errorf("no WARNING line saying the worktree is not warden's (%s):\n%s", why, stdout)
}

// noMarker fails the test when the agent's planted program ran.
func noMarker(t *testing.T, marker string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("warden ran the agent's program:\n%s", b)
	}
}

// An agent that puts a repository of its own where its worktree's .git was
// (core.fsmonitor, or a clean filter, a script) never gets it run by
// warden: worktree_refused, a WARNING, nothing committed.
func TestHostileAgentsOwnRepositoryRunsNothing(t *testing.T) {
	for _, kind := range []string{"fsmonitor", "filter"} {
		t.Run(kind, func(t *testing.T) {
			defer proctest.AssertNone(t)
			repo, git := gitRepo(t)
			marker := filepath.Join(t.TempDir(), "ran")
			cfg := hostileGitTeam(t, repo, "gitattack:plant="+kind+":marker="+marker+":steps=3:write=notes.txt")
			_, stdout, _ := runTeam(t, cfg, 60*time.Second)
			noMarker(t, marker)
			refusedEvent(t, cfg, stdout, ".git is a directory")
			branch := "warden/" + cfg.Name + "/T1"
			if got := git("log", "--format=%an", branch); got != "t" {
				t.Errorf("commits on %s by: %q", branch, got)
			}
		})
	}
}

// A .gitattributes naming a driver the user's configuration defines (a
// git-lfs-like filter, here a script) runs nothing: the work is committed
// as the agent wrote it.
func TestHostileAgentsAttributesRunNoConfiguredFilter(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	dir := t.TempDir()
	marker, script := filepath.Join(dir, "ran"), filepath.Join(dir, "lfs.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"ran: $*\" >> '"+marker+"'\nexec cat\n"), 0o755)
	for _, kv := range [][2]string{{"filter.lfs.clean", script}, {"filter.lfs.smudge", script},
		{"filter.lfs.process", script}, {"filter.lfs.required", "true"}} {
		git("config", kv[0], kv[1])
	}
	cfg := hostileGitTeam(t, repo, "gitattack:plant=attributes:driver=lfs:steps=2:write=notes.txt")
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Errorf("exit %d: %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	noMarker(t, marker)
	branch := "warden/" + cfg.Name + "/T1"
	if got := git("cat-file", "blob", branch+":notes.txt"); got != "T1 step 1\nT1 step 2" {
		t.Errorf("notes.txt on %s = %q", branch, got)
	}
	if countEvents(eventsOf(t, cfg), event.WorkCommitted, "") == 0 {
		t.Error("no work_committed")
	}
}

// A .git naming another repository makes warden commit nothing there:
// that repository gets no commit, every work_committed names a commit on
// the task's branch in the task's repository, and the worktree is refused.
func TestHostileAgentsGitFileNamingAnotherRepository(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	other, otherGit := gitRepo(t)
	otherGit("commit", "-q", "--allow-empty", "-m", "other") // a head the task's repository has not
	cfg := hostileGitTeam(t, repo, "gitattack:plant=gitdir:target="+other+":steps=3:write=notes.txt")
	_, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if got := otherGit("log", "--all", "--format=%an %s"); got != "t other\nt start" {
		t.Errorf("the other repository's commits:\n%s", got)
	}
	refusedEvent(t, cfg, stdout, ".git names "+filepath.Join(other, ".git"))
	branch := "warden/" + cfg.Name + "/T1"
	for _, e := range eventsOf(t, cfg) {
		if e["event"] != event.WorkCommitted {
			continue
		}
		c, _ := e["commit"].(string)
		if err := exec.Command("git", "-C", repo, "merge-base", "--is-ancestor", c, branch).Run(); err != nil {
			t.Errorf("work_committed names %s, not on %s in the task's repository: %v", c, branch, err)
		}
	}
	if got := git("log", "--format=%an", branch); got != "t" {
		t.Errorf("commits on %s by: %q", branch, got)
	}
	// No record says the work stands in the other repository: where a
	// record names a branch and head they are the task's, in its repository.
	hist, err := state.ReadHistory(cfg.StateDir, "T1")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		cp, err := state.FindRecord(cfg.StateDir, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cp.Git == nil {
			continue
		}
		onBranch := exec.Command("git", "-C", repo, "merge-base", "--is-ancestor", cp.Git.Head, branch).Run() == nil
		if cp.Git.Branch != branch || !onBranch {
			t.Errorf("record %s says the work is on %q at %s, not on the task's branch in its repository", h.ID, cp.Git.Branch, cp.Git.Head)
		}
	}
}

// A worktree replaced by a symbolic link to the user's checkout is never
// followed when the agent restarts: the task fails with the reason, and
// the user's checkout is untouched. Without the box: behind its walls the
// worktree cannot be replaced (TestHostileAgentsWorktreeStaysInTheBox).
func TestHostileAgentsSymlinkedWorktreeIsRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	once := filepath.Join(t.TempDir(), "once")
	cfg := hostileGitTeam(t, repo, "gitattack:plant=symlink:target="+repo+":once="+once+":steps=2:write=notes.txt")
	cfg.Sandbox = config.SandboxOff
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 1 || res.Tasks[0].State != queue.Failed || !strings.Contains(res.Tasks[0].Reason, "symbolic link") {
		t.Errorf("exit %d, tasks %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	if _, err := os.Stat(filepath.Join(repo, "notes.txt")); err == nil {
		t.Error("a session ran in the user's checkout: notes.txt is there")
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Errorf("the user's checkout changed: %q", got)
	}
	refusedEvent(t, cfg, stdout, "is a symbolic link to "+repo)
}

// A deleted worktree is checked out again from the task's branch when the
// agent restarts (a WARNING says so), and the task completes there.
// Without the box: behind its walls the worktree cannot be deleted.
func TestHostileAgentsDeletedWorktreeIsMadeAgain(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	once := filepath.Join(t.TempDir(), "once")
	cfg := hostileGitTeam(t, repo, "gitattack:plant=delete:once="+once+":steps=2:write=notes.txt")
	cfg.Sandbox = config.SandboxOff
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 || res.Tasks[0].State != queue.Complete {
		t.Fatalf("exit %d, tasks %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	if !strings.Contains(stdout, "WARNING: the worktree of T1 (") || !strings.Contains(stdout, "was deleted: checked out again from branch") {
		t.Errorf("no WARNING about the deleted worktree:\n%s", stdout)
	}
	if strings.Contains(stdout, "no such file or directory") {
		t.Errorf("a session was started in the missing directory:\n%s", stdout)
	}
	branch := "warden/" + cfg.Name + "/T1"
	if got := git("cat-file", "blob", branch+":notes.txt"); got != "T1 step 1\nT1 step 2" {
		t.Errorf("notes.txt on %s = %q", branch, got)
	}
}

// A 1.5 GiB file the agent leaves in its worktree no longer stops every
// commit of its task: it is left out (one WARNING names it, and each
// commit's message), and the rest of the work is committed at every
// checkpoint.
func TestHostileAgentsBigFileIsLeftOut(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	cfg := hostileGitTeam(t, repo, "gitattack:plant=bigfile:steps=3:write=notes.txt")
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Errorf("exit %d: %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	warning := "WARNING: T1's work: big.bin (1.5 GiB) is larger than 100 MiB and is left out of its commits"
	if n := strings.Count(stdout, warning); n != 1 {
		t.Errorf("%d× %q:\n%s", n, warning, stdout)
	}
	branch := "warden/" + cfg.Name + "/T1"
	if got := git("cat-file", "blob", branch+":notes.txt"); got != "T1 step 1\nT1 step 2\nT1 step 3" {
		t.Errorf("notes.txt on %s = %q", branch, got)
	}
	if files := git("ls-tree", "-r", "--name-only", branch); strings.Contains(files, "big.bin") {
		t.Errorf("big.bin committed:\n%s", files)
	}
	if msg := git("log", "-1", "--format=%B", branch); !strings.Contains(msg, "- big.bin (1.5 GiB)") {
		t.Errorf("the last commit's message:\n%s", msg)
	}
}

// Behind the box's walls the worktree, the agent's work dir, is a mount of
// its own in a read-only worktrees/: the agent cannot replace it by a
// symbolic link to the user's checkout (its try fails, its session ends),
// and its next session works in the worktree warden made; the task
// completes there and the user's checkout is untouched.
func TestHostileAgentsWorktreeStaysInTheBox(t *testing.T) {
	defer proctest.AssertNone(t)
	if ok, why := box.WallsAvailable(); !ok {
		t.Skip("no walls here: " + why)
	}
	repo, git := gitRepo(t)
	once := filepath.Join(t.TempDir(), "once")
	cfg := hostileGitTeam(t, repo, "gitattack:plant=symlink:target="+repo+":once="+once+":steps=2:write=notes.txt")
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 || res.Tasks[0].State != queue.Complete {
		t.Fatalf("exit %d, tasks %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	if !strings.Contains(stdout, "fakeagent gitattack: removing "+filepath.Join(cfg.StateDir, "worktrees", "T1")) {
		t.Errorf("the agent's try to replace its worktree did not fail:\n%s", stdout)
	}
	if e := firstEvent(eventsOf(t, cfg), event.WorktreeRefused); e != nil {
		t.Errorf("worktree_refused %v: the worktree was replaced", e)
	}
	if _, err := os.Stat(filepath.Join(repo, "notes.txt")); err == nil {
		t.Error("a session ran in the user's checkout: notes.txt is there")
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Errorf("the user's checkout changed: %q", got)
	}
}
