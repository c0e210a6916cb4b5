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
	"github.com/wardenhq/warden/supervisor/workspace"
)

// hand makes the land task's worktree for res.Stop, as the team does
// when it hands the land to an agent, and returns its path and the paths
// left in conflict.
func (n *night) hand(t *testing.T, res Result, attempt int) (string, string, []string) {
	t.Helper()
	id := HandID(*res.Stop, attempt)
	path, branch := filepath.Join(n.state, "worktrees", id), "warden/t/"+id
	paths, err := Handover(context.Background(), workspace.New(hclog.NewNullLogger()), n.root, path, branch, *res.Stop)
	if err != nil {
		t.Fatal(err)
	}
	return path, branch, paths
}

// commitAs commits the worktree's files, as warden commits a task's work.
func commitAs(t *testing.T, wt string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		write(t, filepath.Join(wt, name), content)
	}
	gitT(t, wt, "add", "-A")
	gitT(t, wt, "commit", "--quiet", "-m", "the land task's work")
}

// Siblings that edit one line: the land stops at T2; the land task's
// worktree holds the merge with git's markers committed, T2's branch its
// ancestor; the agent's resolution, merged first, lands T2 and T3 after
// it, and land_verify sees the resolved file.
func TestAConflictHandedOverLandsOnceResolved(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"a.txt": "one\nTWO by T1\nthree\nfour\nfive\n"})
	n.task(t, "T2", "main", map[string]string{"a.txt": "one\nTWO by T2\nthree\nfour\nfive\n"})
	n.task(t, "T3", "main", map[string]string{"three.txt": "3\n"})
	verify := []string{"sh", "-c", "! grep -q '<<<<<<<' a.txt"}
	res, _ := n.land(t, config.Landing{Land: config.LandBranch, LandVerify: verify, LandVerifyEach: true})
	if res.Stop == nil || res.Stop.Task != "T2" || res.Stop.Kind != KindConflict || strings.Join(res.Stop.Paths, ",") != "a.txt" {
		t.Fatalf("stop = %+v", res.Stop)
	}
	wt, branch, paths := n.hand(t, res, 1)
	if branch != "warden/t/land.T2" || strings.Join(paths, ",") != "a.txt" {
		t.Fatalf("handed %s with %v", branch, paths)
	}
	a, _ := os.ReadFile(filepath.Join(wt, "a.txt"))
	if !strings.Contains(string(a), "<<<<<<<") || gitT(t, wt, "status", "--porcelain") != "" {
		t.Errorf("the land task's a.txt:\n%s\nstatus: %s", a, gitT(t, wt, "status", "--porcelain"))
	}
	gitT(t, n.root, "merge-base", "--is-ancestor", "warden/t/T2", branch)
	prompt := Prompt(res, *res.Stop, branch, paths, verify)
	for _, want := range []string{"land stopped at T2", "merging warden/t/T2 conflicts in a.txt", "a.txt hold git's conflict markers"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}

	// Markers left: the land stops there again, naming them.
	r := Resolution{ID: "land.T2", Lands: "T2", Branch: branch, Paths: paths}
	res2, _ := n.landWith(t, config.Landing{Land: config.LandBranch, LandVerify: verify, LandVerifyEach: true}, r)
	if res2.Stop == nil || res2.Stop.Task != "T2" || !strings.Contains(res2.Stop.Why, "left conflict markers in a.txt") {
		t.Fatalf("markers left: stop = %+v", res2.Stop)
	}

	commitAs(t, wt, map[string]string{"a.txt": "one\nTWO by T1 and T2\nthree\nfour\nfive\n"})
	res3, _ := n.landWith(t, config.Landing{Land: config.LandBranch, LandVerify: verify, LandVerifyEach: true}, r)
	if res3.Stop != nil || len(res3.Waits) != 0 || strings.Join(res3.Resolutions, ",") != "land.T2" {
		t.Fatalf("resolved: stop %+v, waits %+v, resolutions %v", res3.Stop, res3.Waits, res3.Resolutions)
	}
	if got := landedTasks(res3); got != "T1 T2 T3" {
		t.Errorf("landed %q", got)
	}
	if got := gitT(t, n.root, "show", "warden/t/landed:a.txt"); !strings.Contains(got, "TWO by T1 and T2") {
		t.Errorf("landed a.txt:\n%s", got)
	}
	n.assertClean(t)
}

// A land_verify that fails after T2's merge: the land task's worktree is
// T2 merged where the land stopped; the agent's fix lands T2.
func TestAFailingVerifyHandedOverLandsOnceFixed(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"one.txt": "1\n"})
	n.task(t, "T2", "main", map[string]string{"two.txt": "broken\n"})
	l := config.Landing{Land: config.LandBranch, LandVerify: []string{"sh", "-c", "! grep -q broken *.txt || { echo 'two.txt is broken'; exit 1; }"}}
	res, _ := n.land(t, l) // verified once, after the last merge
	if res.Stop == nil || res.Stop.Kind != KindVerify || res.Stop.Task != "T1, T2" || len(res.Stop.Merging) != 2 {
		t.Fatalf("stop = %+v", res.Stop)
	}
	wt, branch, paths := n.hand(t, res, 1)
	if branch != "warden/t/land.verify" || len(paths) != 0 {
		t.Fatalf("handed %s with %v", branch, paths)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "two.txt")); string(b) != "broken\n" {
		t.Errorf("two.txt in the land task's worktree: %q", b)
	}
	if p := Prompt(res, *res.Stop, branch, paths, l.LandVerify); !strings.Contains(p, "two.txt is broken") || !strings.Contains(p, "It fails now") {
		t.Errorf("prompt:\n%s", p)
	}
	commitAs(t, wt, map[string]string{"two.txt": "2\n"})
	res2, _ := n.landWith(t, l, Resolution{ID: "land.verify", Lands: res.Stop.Task, Branch: branch})
	if res2.Stop != nil || res2.Verify != "passed" || landedTasks(res2) != "T1 T2" {
		t.Fatalf("fixed: %+v", res2)
	}
}

// warden died after a merge and before its land_verify: the next land
// goes back to the last verified head and merges (and verifies) again; a
// merge half made is aborted first; a person's commit past it is kept.
func TestALandHalfDoneGoesBackToItsLastVerifiedHead(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"one.txt": "1\n"})
	n.task(t, "T2", "main", map[string]string{"two.txt": "2\n"})
	mark := filepath.Join(t.TempDir(), "verified")
	l := config.Landing{Land: config.LandBranch, LandVerifyEach: true,
		LandVerify: []string{"sh", "-c", "ls *.txt | tr '\\n' ' ' >> '" + mark + "'; echo >> '" + mark + "'"}}
	var goods []string
	run := func(tasks int) Result {
		t.Helper()
		good := ""
		if len(goods) > 0 {
			good = goods[len(goods)-1]
		}
		res, err := Run(context.Background(), Options{Team: "t", Path: filepath.Join(n.state, "land"), Landing: l,
			Tasks: n.tasks[:tasks], Good: good, Git: workspace.New(hclog.NewNullLogger()),
			OnGood: func(h string) { goods = append(goods, h) }})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(1); res.Stop != nil || len(goods) != 1 {
		t.Fatalf("T1's land: %+v goods %v", res, goods)
	}
	wt := filepath.Join(n.state, "land")
	asWarden := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = wt
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=warden", "GIT_AUTHOR_EMAIL="+workspace.AuthorEmail,
			"GIT_COMMITTER_NAME=warden", "GIT_COMMITTER_EMAIL="+workspace.AuthorEmail)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A merge begun and left.
	asWarden("merge", "--quiet", "--no-commit", "--no-ff", "warden/t/T2")
	os.Remove(mark)
	if res := run(2); res.Stop != nil || landedTasks(res) != "T1 T2" || !res.Landed[0].Already || res.Landed[1].Already {
		t.Fatalf("after a merge left half made: %+v", res)
	}
	n.assertClean(t)
	// T2 merged and never verified: back to T1, T2 merged and verified.
	gitT(t, wt, "reset", "--quiet", "--hard", goods[0])
	asWarden("merge", "--quiet", "--no-ff", "-m", "warden: merge", "warden/t/T2")
	goods = goods[:1]
	os.Remove(mark)
	if res := run(2); res.Stop != nil || res.Landed[1].Already {
		t.Fatalf("after a merge never verified: %+v", res)
	}
	if runs, _ := os.ReadFile(mark); !strings.Contains(string(runs), "two.txt") {
		t.Errorf("T2 not verified again: %q", runs)
	}
	// A person's commit past the last verified head stays.
	write(t, filepath.Join(wt, "person.txt"), "mine\n")
	gitT(t, wt, "add", "-A")
	gitT(t, wt, "commit", "--quiet", "-m", "a person's commit")
	head := gitT(t, wt, "rev-parse", "HEAD")
	run(2)
	if got := gitT(t, wt, "rev-parse", "HEAD"); got != head {
		t.Errorf("a person's commit was undone: %s, not %s", got, head)
	}
}

// landWith runs a land of the night's tasks with resolutions merged first.
func (n *night) landWith(t *testing.T, l config.Landing, rs ...Resolution) (Result, []string) {
	t.Helper()
	var events []string
	res, err := Run(context.Background(), Options{
		Team: "t", Path: filepath.Join(n.state, "land"), Landing: l, Tasks: n.tasks, Resolved: rs,
		Git:  workspace.New(hclog.NewNullLogger()),
		Emit: func(name, _ string, kv ...any) { events = append(events, name) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, events
}

// A land handed over in a repository whose configuration names filters,
// a textconv and hooks, and whose task branches' .gitattributes pick
// them: making the land task's worktree (the conflict committed with its
// markers), checking it for markers and landing its resolution run none
// of them.
func TestAHandoverRunsNoDriverOrHook(t *testing.T) {
	n := newNight(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "evil.sh")
	write(t, script, "#!/bin/sh\necho \"ran: $0 $*\" >> '"+marker+"'\nexec cat\n")
	os.Chmod(script, 0o755)
	for _, kv := range [][2]string{{"filter.evil.clean", script}, {"filter.evil.smudge", script}, {"diff.evil.textconv", script}} {
		gitT(t, n.root, "config", kv[0], kv[1])
	}
	for _, hook := range []string{"pre-merge-commit", "post-merge", "post-checkout", "commit-msg", "prepare-commit-msg", "reference-transaction", "pre-commit"} {
		write(t, filepath.Join(n.root, ".git", "hooks", hook), "#!/bin/sh\necho \"hook: $0\" >> '"+marker+"'\n")
		os.Chmod(filepath.Join(n.root, ".git", "hooks", hook), 0o755)
	}
	attrs := "* filter=evil diff=evil\n"
	n.task(t, "T1", "main", map[string]string{".gitattributes": attrs, "a.txt": "one\nTWO by T1\nthree\nfour\nfive\n"})
	n.task(t, "T2", "main", map[string]string{".gitattributes": attrs, "a.txt": "one\nTWO by T2\nthree\nfour\nfive\n"})
	os.Remove(marker) // the test's own git calls ran them
	res, _ := n.land(t, config.Landing{Land: config.LandBranch})
	if res.Stop == nil || res.Stop.Kind != KindConflict {
		t.Fatalf("stop = %+v", res.Stop)
	}
	wt, branch, paths := n.hand(t, res, 1)
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the land or its handover ran what the repository names:\n%s", b)
	}
	if a, _ := os.ReadFile(filepath.Join(wt, "a.txt")); !strings.Contains(string(a), "<<<<<<<") {
		t.Fatalf("the land task's a.txt holds no conflict:\n%s", a)
	}
	os.WriteFile(filepath.Join(wt, "a.txt"), []byte("one\nTWO by T1 and T2\nthree\nfour\nfive\n"), 0o644)
	c := exec.Command("git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-am", "resolved")
	c.Dir = wt
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the agent's commit: %v\n%s", err, out)
	}
	os.Remove(marker) // the agent's own git is the agent's
	res2, _ := n.landWith(t, config.Landing{Land: config.LandBranch}, Resolution{ID: "land.T2", Lands: "T2", Branch: branch, Paths: paths})
	if res2.Stop != nil || landedTasks(res2) != "T1 T2" {
		t.Errorf("resolved: %+v", res2)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a handover ran what the repository names:\n%s", b)
	}
}
