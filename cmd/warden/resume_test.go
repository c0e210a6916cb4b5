//go:build !e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// warden resume on a team that no warden runs — its run stopped, or its
// warden died — says that `warden run TEAM.toml` carries the run on (it
// said only that no warden runs the team); on a finished run, that there
// is nothing to resume.
func TestResumeOnAStoppedTeamSaysHowToCarryItOn(t *testing.T) {
	dir := t.TempDir()
	team := filepath.Join(dir, "night.toml")
	os.WriteFile(team, []byte(strings.Replace(oneOfEach, "name = \"one\"\n", "name = \"one\"\nstate_dir = \"st\"\n", 1)), 0o600)
	stateDir := filepath.Join(dir, "st")
	d, err := state.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ended string
		args  []string
		want  string
	}{
		{state.EndedStopped, []string{team}, "its run R1 stopped with 1 task open; `warden run " + team + "` carries it on from their checkpoints"},
		{state.EndedStopped, []string{"--state-dir", stateDir, "--account", "work"}, "`warden run TEAM.toml` carries it on"},
		{"", []string{"--state-dir", stateDir}, "its run R1 did not stop (its warden died) with 1 task open; `warden run TEAM.toml` carries it on"},
		{state.EndedFinished, []string{team}, "its run R1 finished; there is nothing to resume"},
	} {
		d.WriteSnapshot(state.Snapshot{Team: "one", RunID: "R1", Ended: c.ended, UpdatedAt: time.Now(),
			Tasks: []queue.Status{{ID: "T1", State: queue.Pending}, {ID: "T2", State: queue.Complete}}})
		var out, errOut bytes.Buffer
		err := cmdResume(c.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "no warden is running this team") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume %v (ended %q): %v, want %q", c.args, c.ended, err, c.want)
		}
	}
}
