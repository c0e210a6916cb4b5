//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/proctest"
)

// compressedNight is issue 37's figure: 12 tasks in worktree mode with
// blocked_by, run by 4 fake agents (real processes), each task appending
// to the file its prompt names. Three pairs of sibling tasks write one
// file on purpose (c1.txt, c2.txt, c3.txt): the land meets 3 conflicts.
// land_by = "w1" resolves them keeping both sides; land_verify refuses c3
// with both T11's and T12's lines, so that one is left for a person after
// land_attempts (2).
const compressedNight = `workspace = "worktree"
land = "branch"
land_by = "w1"
land_verify_each = true
land_verify = ["sh", "-c", "! grep -rq --include=*.txt '^<<<<<<<' . && ! { grep -q T11 c3.txt && grep -q T12 c3.txt; } 2>/dev/null"]
`

// nightTasks is the 12 tasks: id, the file it edits, blocked_by.
var nightTasks = [][3]string{
	{"T1", "t01.txt", ""}, {"T2", "t02.txt", ""}, {"T3", "t03.txt", "T1"},
	{"T4", "c1.txt", "T1"}, {"T5", "c1.txt", "T1"}, {"T6", "t06.txt", "T2"},
	{"T7", "c2.txt", "T2"}, {"T8", "c2.txt", "T2"}, {"T9", "t09.txt", "T3\", \"T6"},
	{"T10", "t10.txt", "T4"}, {"T11", "c3.txt", "T9"}, {"T12", "c3.txt", "T9"},
}

// nightRepo is a repository with one commit on main, for tb.
func nightRepo(tb testing.TB) string {
	tb.Helper()
	repo := tb.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		if args[0] == "add" {
			os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".warden/\n"), 0o644)
		}
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

// nightFigures is what one compressed night gives.
type nightFigures struct {
	overlaps, auto, handedLanded, left, handed int
	// night: the whole run; land: from the last task's completion to the
	// land's last word; merging: of that, warden's own land steps (merges
	// and land_verify), the land tasks' sessions left out.
	night, land, merging time.Duration
}

// runCompressedNight runs the night once and reads its figures from
// events.jsonl.
func runCompressedNight(tb testing.TB) nightFigures {
	tb.Helper()
	repo := nightRepo(tb)
	var tasks strings.Builder
	for _, t := range nightTasks {
		fmt.Fprintf(&tasks, "\n[[task]]\nid = %q\nprompt = \"Edit: %s\"\n", t[0], t[1])
		if t[2] != "" {
			fmt.Fprintf(&tasks, "blocked_by = [\"%s\"]\n", t[2])
		}
	}
	mode := "worker:steps=3:edit=1:resolve=1"
	var agents []fakeAgent
	for i := 1; i <= 4; i++ {
		agents = append(agents, fakeAgent{name: fmt.Sprintf("w%d", i), mode: mode, dir: repo})
	}
	cfg := writeTeamB(tb, fastTimers+compressedNight+tasks.String(), agents...)
	cfg.StateDir = filepath.Join(repo, ".warden")
	cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	team, err := New(hclog.NewNullLogger(), cfg, clock.Real{}, &syncBuffer{})
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	res := runWithEdges(team)
	team.Close()
	if res.ExitCode() != 0 || res.Land == nil {
		tb.Fatalf("exit %d, land %+v, tasks %+v", res.ExitCode(), res.Land, res.Tasks)
	}
	var f nightFigures
	f.night = time.Since(start)
	evs := eventsOf(tb, cfg)
	f.overlaps = countEvents(evs, event.Overlap, "")
	f.handed = countEvents(evs, event.LandHanded, "")
	f.left = countEvents(evs, event.LandLeft, "")
	var lastDone, landEnd, from time.Time
	handedFor := map[string]bool{}
	for _, e := range evs {
		task, _ := e["task"].(string)
		switch e["event"] {
		case event.TaskCompleted:
			if !strings.HasPrefix(task, "land.") {
				lastDone = eventTime(tb, e)
			}
			from = eventTime(tb, e) // a land step follows the last completion
		case event.LandHanded:
			handedFor[e["lands"].(string)] = true
		case event.WorkLanded:
			landEnd = eventTime(tb, e)
			f.merging += landEnd.Sub(from)
		case event.LandLeft:
			landEnd = eventTime(tb, e)
		}
	}
	f.land = landEnd.Sub(lastDone)
	for _, d := range res.Land.Landed {
		if handedFor[d.Task] {
			f.handedLanded++
		} else {
			f.auto++
		}
	}
	return f
}

// BenchmarkTheCompressedNightWithOverlap is issue 37's figure: 12 tasks,
// 3 conflicts made on purpose; it reports the overlaps said while the
// agents worked, the tasks landed automatically, those handed to an agent
// and then landed, those left for a person, and the land's wall time (from
// the last task's completion to the land's last word, its land tasks'
// sessions included).
func BenchmarkTheCompressedNightWithOverlap(b *testing.B) {
	defer proctest.AssertNone(b)
	var f nightFigures
	for b.Loop() {
		f = runCompressedNight(b)
	}
	b.ReportMetric(float64(len(nightTasks)), "tasks")
	b.ReportMetric(3, "conflicts_planted")
	b.ReportMetric(float64(f.overlaps), "overlaps_while_working")
	b.ReportMetric(float64(f.auto), "landed_automatically")
	b.ReportMetric(float64(f.handedLanded), "handed_then_landed")
	b.ReportMetric(float64(f.left), "left_for_a_person")
	b.ReportMetric(float64(f.handed), "land_tasks")
	b.ReportMetric(f.land.Seconds(), "land_s")
	b.ReportMetric(f.merging.Seconds(), "land_merging_s")
	b.ReportMetric(f.night.Seconds(), "night_s")
}

// The compressed night as a test: the three planted conflicts are landed
// or left as designed — 9 tasks landed automatically, T5 and T8 handed to
// w1 and landed, T12 left for a person after two land tasks.
func TestTheCompressedNightLandsAsPlanted(t *testing.T) {
	defer proctest.AssertNone(t)
	f := runCompressedNight(t)
	if f.auto != 9 || f.handedLanded != 2 || f.left != 1 || f.handed != 4 {
		t.Errorf("landed automatically %d (want 9), handed then landed %d (want 2), left %d (want 1), land tasks %d (want 4)",
			f.auto, f.handedLanded, f.left, f.handed)
	}
	if f.overlaps < 1 {
		t.Errorf("no overlap said while the agents worked")
	}
	t.Logf("overlaps %d, land %v, night %v", f.overlaps, f.land, f.night)
}
