//go:build !e2e

package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// landNight is issue 37's land handed to an agent: a and b each complete
// a task in worktree mode; the team lands them (land_by = "a") with a
// land_verify of kind verify.
func landNight(verify string, attempts int) Spec {
	return Spec{Seed: 39, Worktree: true, Rehydrate: true, Night: 3 * time.Minute, LandBy: "a", LandVerify: verify,
		LandAttempts: attempts,
		Timers: Timers{Interval: 2 * time.Second, Timeout: 30 * time.Second, Shutdown: 3 * time.Second,
			StaleWarning: 10 * time.Minute, StaleFailure: 30 * time.Minute},
		Agents: []AgentSpec{
			{Name: "a", Restart: "on-failure", MaxRestarts: 5, Persona: Persona{AnswerMin: 500 * time.Millisecond,
				AnswerMax: 500 * time.Millisecond, CompleteAfter: 2, Writes: true}},
			{Name: "b", Restart: "on-failure", MaxRestarts: 5, Persona: Persona{AnswerMin: 500 * time.Millisecond,
				AnswerMax: 500 * time.Millisecond, CompleteAfter: 2, Writes: true}},
		},
		Tasks: []TaskSpec{{ID: "T1", Agent: "a"}, {ID: "T2", Agent: "b"}},
	}
}

// landStory is the night's land events and the land tasks' completions.
func landStory(evs []Event) []string {
	var out []string
	for _, e := range evs {
		switch e.Name() {
		case "land_stopped":
			out = append(out, "stopped at "+e.Task())
		case "land_handed":
			out = append(out, fmt.Sprintf("handed %s to %s attempt %s", e.Task(), e.Agent(), e.Str("attempt")))
		case "land_left":
			out = append(out, "left "+e.Task())
		case "work_landed":
			out = append(out, fmt.Sprintf("landed %s stopped %s", e.Str("tasks"), e.Str("stopped")))
		case "task_completed":
			if strings.HasPrefix(e.Task(), "land.") {
				out = append(out, "completed "+e.Task()+" by "+e.Agent())
			}
		}
	}
	return out
}

// TestALandHandedToAnAgent: land_verify fails once (flaky): the land
// stops, a land task goes to land_by, which completes it, and the land
// goes on and lands both tasks; land_verify failing every time: two land
// tasks (land_attempts), then the stop is left for a person. The sim's
// invariants hold, and the run's exit code is its tasks'.
func TestALandHandedToAnAgent(t *testing.T) {
	for _, c := range []struct {
		verify, status string
		want           []string
	}{
		{"flaky", "- warden/sim/landed: landed T1, T2\n", []string{"stopped at T1, T2", "landed  stopped true", "handed land.verify to a attempt 1",
			"completed land.verify by a", "landed [T1 T2] stopped false"}},
		{"fail", "- warden/sim/landed: nothing landed yet; stopped at T1, T2 (land_verify ", []string{"stopped at T1, T2", "landed  stopped true", "handed land.verify to a attempt 1",
			"completed land.verify by a", "stopped at T1, T2", "landed  stopped true", "handed land.verify.2 to a attempt 2",
			"completed land.verify.2 by a", "stopped at T1, T2", "landed  stopped true", "left T1, T2"}},
	} {
		t.Run(c.verify, func(t *testing.T) {
			w := CheckSpec(t, landNight(c.verify, 2))
			if got := landStory(w.eventsNow()); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("land story:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"), w.out.String())
			}
			out := w.out.String()
			if !strings.Contains(out, "LAND HANDED: land.verify to a (land_verify `sim-verify") {
				t.Errorf("no LAND HANDED line:\n%s", out)
			}
			if c.verify == "fail" && !strings.Contains(out, "LAND LEFT: T1, T2 for a person (land_attempts 2 spent)") {
				t.Errorf("no LAND LEFT line:\n%s", out)
			}
			// STATUS.md (and state.json, which it is written from) says
			// where the land stands; the run's exit code is its tasks'.
			md := w.statusMD
			if !strings.Contains(md, "## Land\n\n"+c.status) || (c.verify == "fail") != strings.Contains(md, "): left for a person") {
				t.Errorf("STATUS.md's Land section, want %q:\n%s", c.status, md)
			}
		})
	}
}

// TestALandHandedOverIsCarriedOn: warden dies (kill -9) while land_by
// works on its land task, and is started again: the run carried on takes
// the land task back from land.json, land_by completes it, and the land
// goes on from where it stopped and lands both tasks — one land task, one
// completion.
func TestALandHandedOverIsCarriedOn(t *testing.T) {
	spec := landNight("flaky", 2)
	spec.Ops = []Op{{At: 8 * time.Second, Kind: OpKill9}, {At: 12 * time.Second, Kind: OpRun}}
	w := CheckSpec(t, spec)
	want := []string{"stopped at T1, T2", "landed  stopped true", "handed land.verify to a attempt 1",
		"completed land.verify by a", "landed [T1 T2] stopped false"}
	if got := landStory(w.eventsNow()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("land story:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), w.out.String())
	}
	if out := w.out.String(); !strings.Contains(out, "CARRYING ON:") {
		t.Errorf("the run was not carried on:\n%s", out)
	}
}

// TestAHandoffDuringALandTaskSaysWhereTheLandStands: a team checkpoint
// (warden checkpoint) while land_by works on its land task writes a
// handoff whose Land section names the land task; the fresh generation
// carries it on and the land goes on to land both tasks.
func TestAHandoffDuringALandTaskSaysWhereTheLandStands(t *testing.T) {
	spec := landNight("flaky", 2)
	spec.Ops = []Op{{At: 8 * time.Second, Kind: OpCheckpoint}}
	w := CheckSpec(t, spec)
	want := "## Land\n\n- warden/sim/landed: nothing landed yet; stopped at T1, T2 ("
	if !strings.Contains(w.handoffMD, want) || !strings.Contains(w.handoffMD, "): handed to a as land.verify (attempt 1 of 2)") {
		t.Errorf("handoff.md, want %q and the land task:\n%s", want, w.handoffMD)
	}
	story := landStory(w.eventsNow())
	if last := story[len(story)-1]; last != "landed [T1 T2] stopped false" {
		t.Errorf("land story:\n%s\n%s", strings.Join(story, "\n"), w.out.String())
	}
}
