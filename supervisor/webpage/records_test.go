//go:build !e2e

package webpage

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/state"
)

// The page the morning after a night whose supervisor died: the state
// dir's state.json says running, no warden holds its lock. The "disk"
// event says the team died (the page's badge: dead, not a green running),
// its working agent is unknown with what it was doing (as warden status
// says), and each agent's card gets its last record's Completed and
// Remaining from checkpoints/ — w1's newest of the run on its task (not an
// older one, nor a newer one of another run), w2's archived as complete —
// where state.json holds none ("COMPLETED -" before). The same fill gives
// a carried-on run's agents theirs before their first checkpoint.
func TestThePageShowsTheLastRecordFromDisk(t *testing.T) {
	root := t.TempDir()
	dir, err := state.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	err = dir.WriteSnapshot(state.Snapshot{Team: "night", RunID: "r1", Running: true, UpdatedAt: time.Now(),
		Agents: []state.AgentStatus{{Name: "w1", State: "running", Task: "T1"}, {Name: "w2", State: "exited"}}})
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.NewStore(hclog.NewNullLogger(), state.NewLayout(root).Checkpoints(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	save := func(run, agent, task string, pct int, done ...string) {
		store.SetRun(run)
		at = at.Add(time.Minute)
		cp := &protocol.Checkpoint{CheckpointID: agent + task + run + string(rune('a'+pct/10)), RunID: run, Agent: agent, TaskID: task,
			Status: "implementing", ProgressPercent: pct, Completed: done, Remaining: []string{"the rest after " + strings.Join(done, ", ")}, UpdatedAt: at}
		if err := store.Save(cp); err != nil {
			t.Fatal(err)
		}
	}
	save("r1", "w1", "T1", 20, "parse")
	save("r1", "w1", "T1", 40, "parse", "lex")
	save("r1", "w2", "T2", 100, "all of T2")
	if err := store.Archive("w2", "T2"); err != nil {
		t.Fatal(err)
	}
	save("r0", "w1", "T9", 90, "another run's")

	d, _, ok := fromDisk(root)
	if !ok || !d.Died || d.PS.Agents[0].State != state.Unknown || !strings.Contains(d.PS.Agents[0].Reason, "was running when warden died") {
		t.Fatalf("from disk: ok %v, died %v, w1 %+v; want the team dead, w1 unknown", ok, d.Died, d.PS.Agents[0].AgentStatus)
	}
	s := &Server{opts: Options{StateDir: root}}
	s.fillRecords(d.PS)
	for i, want := range []string{"parse, lex | the rest after parse, lex | 40", "all of T2 | the rest after all of T2 | 100"} {
		cp := d.PS.Agents[i].Checkpoint
		if cp == nil {
			t.Errorf("%s: no record on its card (COMPLETED -)", d.PS.Agents[i].Name)
			continue
		}
		if got := strings.Join(cp.Completed, ", ") + " | " + strings.Join(cp.Remaining, ", ") + " | " + strconv.Itoa(cp.Progress); got != want {
			t.Errorf("%s's card: %q, want %q", d.PS.Agents[i].Name, got, want)
		}
	}
}
