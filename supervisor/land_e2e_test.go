//go:build e2e

package supervisor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/proctest"
)

// landTeam is two fake agents in repo, in worktree mode, whose tasks T1
// and T2 each write shared.txt (a conflict between siblings), landing
// within the run with land_by = "w1"; the agents resolve a land task's
// conflict markers keeping both sides (resolve=1).
func landTeam(t *testing.T, repo, extra string) *teamFile {
	t.Helper()
	mode := "worker:steps=2:write=shared.txt:resolve=1"
	cfg := writeTeam(t, fastTimers+`workspace = "worktree"
land = "branch"
land_by = "w1"
`+extra+`
[[task]]
id = "T1"
prompt = "One."
agent = "w1"
[[task]]
id = "T2"
prompt = "Two."
agent = "w2"
`, fakeAgent{name: "w1", mode: mode, dir: repo}, fakeAgent{name: "w2", mode: mode, dir: repo})
	cfg.StateDir = filepath.Join(repo, ".warden")
	cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	return &teamFile{cfg}
}

// Siblings that write one file: the land stops at the second's conflict,
// hands it to w1 as land.T2 (its worktree holds the merge, git's markers
// committed), w1 resolves it keeping both, and the land goes on: both
// tasks on warden/{team}/landed, land_verify passing on it, exit 0.
func TestAConflictIsHandedToAnAgentAndLands(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	tf := landTeam(t, repo, `land_verify = ["sh", "-c", "! grep -q '<<<<<<<' shared.txt && grep -q T1 shared.txt && grep -q T2 shared.txt"]`)
	res, stdout, _ := runTeam(t, tf.cfg, 90*time.Second)
	if res.ExitCode() != 0 || res.Land == nil || res.Land.Stop != nil {
		t.Fatalf("exit %d, land %+v, tasks %+v\n%s", res.ExitCode(), res.Land, res.Tasks, stdout)
	}
	evs := eventsOf(t, tf.cfg)
	stopped, handed := firstEvent(evs, event.LandStopped), firstEvent(evs, event.LandHanded)
	if stopped == nil || handed == nil || handed["task"] != "land."+stopped["task"].(string) || handed["agent"] != "w1" ||
		handed["kind"] != "conflict" || !strings.Contains(stopped["why"].(string), "shared.txt") {
		t.Fatalf("land_stopped %v, land_handed %v\n%s", stopped, handed, stdout)
	}
	if n := countEvents(evs, event.LandHanded, ""); n != 1 {
		t.Errorf("%d land tasks, want 1", n)
	}
	landed := git("show", "warden/"+tf.cfg.Name+"/landed:shared.txt")
	if strings.Contains(landed, "<<<<<<<") || !strings.Contains(landed, "T1 step 2") || !strings.Contains(landed, "T2 step 2") {
		t.Errorf("landed shared.txt:\n%s", landed)
	}
	if got := landedIDs(res); got != "T1 T2" && got != "T2 T1" {
		t.Errorf("landed %q", got)
	}
	for _, line := range []string{"LAND HANDED: land.", "to w1 (merging warden/", "LANDED: T1", "LANDED: T2"} {
		if !strings.Contains(stdout+landOut(res), line) {
			t.Errorf("output lacks %q:\n%s%s", line, stdout, landOut(res))
		}
	}
	if git("status", "--porcelain") != "" {
		t.Errorf("the user's checkout was touched: %s", git("status", "--porcelain"))
	}
}

// A land_verify that never passes: land_attempts (1) land task, then the
// stop is left for a person — land_left, a LAND LEFT line, the run's exit
// code its tasks' (0).
func TestALandLeftForAPersonAfterItsAttempts(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, _ := gitRepo(t)
	tf := landTeam(t, repo, "land_attempts = 1\nland_verify = [\"false\"]")
	res, stdout, _ := runTeam(t, tf.cfg, 90*time.Second)
	if res.ExitCode() != 0 || res.Land == nil || res.Land.Stop == nil {
		t.Fatalf("exit %d, land %+v\n%s", res.ExitCode(), res.Land, stdout)
	}
	evs := eventsOf(t, tf.cfg)
	if n, left := countEvents(evs, event.LandHanded, ""), firstEvent(evs, event.LandLeft); n != 1 || left == nil {
		t.Fatalf("%d land tasks, land_left %v\n%s", n, left, stdout)
	}
	if !strings.Contains(stdout, "for a person (land_attempts 1 spent)") {
		t.Errorf("no LAND LEFT line:\n%s", stdout)
	}
}

func landedIDs(res Result) string {
	var ids []string
	for _, d := range res.Land.Landed {
		ids = append(ids, d.Task)
	}
	return strings.Join(ids, " ")
}

func landOut(res Result) string {
	var b strings.Builder
	res.Land.Print(&b)
	return b.String()
}
