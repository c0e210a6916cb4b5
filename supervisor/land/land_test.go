//go:build !e2e

package land

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// Three tasks, two siblings editing different files and one blocked_by the
// first (listed first): all land, blockers first, land_verify runs after
// each merge, base stays where it was.
func TestLandMergesInDependencyOrder(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"one.txt": "1\n"})
	n.task(t, "T3", "warden/t/T1", map[string]string{"three.txt": "3\n"}, "T1")
	n.task(t, "T2", "main", map[string]string{"two.txt": "2\n"})
	n.tasks[0], n.tasks[1] = n.tasks[1], n.tasks[0] // T3 first in the file
	mark := filepath.Join(t.TempDir(), "verified")
	base := gitT(t, n.root, "rev-parse", "main")
	res, events := n.land(t, config.Landing{Land: config.LandBranch, LandVerifyEach: true,
		LandVerify: []string{"sh", "-c", "ls *.txt | tr '\\n' ' ' >> '" + mark + "'; echo >> '" + mark + "'"}})
	if res.Stop != nil || len(res.Waits) > 0 {
		t.Fatalf("stopped: %+v, waits %+v", res.Stop, res.Waits)
	}
	if got := landedTasks(res); got != "T1 T3 T2" {
		t.Errorf("landed %q, want T1 T3 T2", got)
	}
	runs, _ := os.ReadFile(mark)
	want := "a.txt one.txt \na.txt one.txt three.txt \na.txt one.txt three.txt two.txt \n"
	if string(runs) != want {
		t.Errorf("land_verify saw\n%s\nwant\n%s", runs, want)
	}
	if got := gitT(t, n.root, "rev-parse", "main"); got != base {
		t.Errorf("base moved to %s", got)
	}
	files := gitT(t, n.root, "ls-tree", "--name-only", "warden/t/landed")
	if files != "a.txt\none.txt\nthree.txt\ntwo.txt" {
		t.Errorf("the landed branch holds\n%s", files)
	}
	if strings.Join(events, " ") != "work_landed" {
		t.Errorf("events %v", events)
	}
	n.assertClean(t)
	var out bytes.Buffer
	res.Print(&out)
	for _, line := range []string{"LANDED: T1 (warden/t/T1 merged into warden/t/landed)", "LAND VERIFY: passed",
		"main not moved"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}

	// Again: nothing new, everything already there.
	res, _ = n.land(t, config.Landing{Land: config.LandBranch})
	if res.Stop != nil || len(res.Landed) != 3 || !res.Landed[0].Already || res.Verify != "not set" {
		t.Errorf("a second land: %+v", res)
	}
}

// land = "ff-base" fast-forwards base to the landed branch, when base is
// not checked out.
func TestLandFFBaseMovesBase(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"one.txt": "1\n"})
	n.task(t, "T2", "main", map[string]string{"two.txt": "2\n"})
	gitT(t, n.root, "checkout", "--quiet", "--detach")
	res, _ := n.land(t, config.Landing{Land: config.LandFFBase, LandVerify: []string{"true"}})
	if res.Stop != nil || !res.BaseMoved {
		t.Fatalf("base not moved: %+v", res)
	}
	if main, landed := gitT(t, n.root, "rev-parse", "main"), gitT(t, n.root, "rev-parse", "warden/t/landed"); main != landed {
		t.Errorf("main at %s, landed at %s", main, landed)
	}
}

// Siblings that edit one line of one file: the land stops at the second,
// names the path, keeps the first merge, leaves the worktree clean; the
// tasks after it wait; with ff-base, base is not moved.
func TestLandStopsAtAConflict(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"a.txt": "one\nTWO by T1\nthree\nfour\nfive\n"})
	n.task(t, "T2", "main", map[string]string{"a.txt": "one\nTWO by T2\nthree\nfour\nfive\n"})
	n.task(t, "T3", "main", map[string]string{"three.txt": "3\n"})
	gitT(t, n.root, "checkout", "--quiet", "--detach")
	base := gitT(t, n.root, "rev-parse", "main")
	res, events := n.land(t, config.Landing{Land: config.LandFFBase})
	if res.Stop == nil || res.Stop.Task != "T2" || !strings.Contains(res.Stop.Why, "a.txt") {
		t.Fatalf("stop = %+v", res.Stop)
	}
	if got := landedTasks(res); got != "T1" {
		t.Errorf("landed %q", got)
	}
	if len(res.Waits) != 1 || res.Waits[0].Task != "T3" {
		t.Errorf("waits %+v", res.Waits)
	}
	if landed, t1 := gitT(t, n.root, "rev-parse", "warden/t/landed"), gitT(t, n.root, "rev-parse", "warden/t/T1"); landed != t1 {
		t.Errorf("landed at %s, not T1's %s", landed, t1)
	}
	if got := gitT(t, n.root, "rev-parse", "main"); got != base || res.BaseMoved {
		t.Errorf("base moved")
	}
	if strings.Join(events, " ") != "land_stopped work_landed" {
		t.Errorf("events %v", events)
	}
	n.assertClean(t)
	var out bytes.Buffer
	res.Print(&out)
	if !strings.Contains(out.String(), "NOT LANDED: T2 - merging warden/t/T2 conflicts in a.txt") {
		t.Errorf("output:\n%s", out.String())
	}
}

// A land_verify that fails after the second merge: the land stops there,
// names the task and the output's last lines, and the branch is back at
// the first merge.
func TestLandStopsAtAFailingVerify(t *testing.T) {
	n := newNight(t)
	n.task(t, "T1", "main", map[string]string{"one.txt": "1\n"})
	n.task(t, "T2", "main", map[string]string{"two.txt": "2\n"})
	verify := []string{"sh", "-c", "if test -f two.txt; then echo building; echo 'two.txt broke the build'; exit 3; fi"}
	res, _ := n.land(t, config.Landing{Land: config.LandBranch, LandVerify: verify, LandVerifyEach: true})
	if res.Stop == nil || res.Stop.Task != "T2" || !strings.Contains(res.Stop.Why, "two.txt broke the build") ||
		!strings.Contains(res.Stop.Why, "exit code 3") {
		t.Fatalf("stop = %+v", res.Stop)
	}
	if landed, t1 := gitT(t, n.root, "rev-parse", "warden/t/landed"), gitT(t, n.root, "rev-parse", "warden/t/T1"); landed != t1 {
		t.Errorf("landed at %s, not T1's %s", landed, t1)
	}
	n.assertClean(t)

	// Verified once after the last merge, the failure undoes this land's
	// merges: the branch stays where the land found it.
	n2 := newNight(t)
	n2.task(t, "T1", "main", map[string]string{"one.txt": "1\n"})
	n2.task(t, "T2", "main", map[string]string{"two.txt": "2\n"})
	res, _ = n2.land(t, config.Landing{Land: config.LandBranch, LandVerify: verify})
	if res.Stop == nil || res.Stop.Task != "T1, T2" || len(res.Landed) != 0 {
		t.Fatalf("stop = %+v, landed %+v", res.Stop, res.Landed)
	}
	if landed, main := gitT(t, n2.root, "rev-parse", "warden/t/landed"), gitT(t, n2.root, "rev-parse", "main"); landed != main {
		t.Errorf("landed at %s, not main's %s", landed, main)
	}
	n2.assertClean(t)
}
