//go:build e2e

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
)

// `warden run team.toml | head -1`: the reader of warden's stdout goes
// away after one line. warden must not die of SIGPIPE: the team finishes
// its work and its state says so.
func TestClosedStdoutDoesNotKillWarden(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=3", "worker:steps=3")
	cmd := warden("run", team)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil { // head -1
		t.Fatal(err)
	}
	out.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("warden with a closed stdout: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(team), ".warden", "state.json"))
	var st struct {
		Running bool `json:"running"`
		Tasks   []struct {
			State string `json:"state"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(b, &st); err != nil || st.Running || len(st.Tasks) != 2 ||
		st.Tasks[0].State != "complete" || st.Tasks[1].State != "complete" {
		t.Errorf("state.json after the run: %s (%v)", b, err)
	}
}

// A state.json that names the pid of another team's live warden (copied, or
// crafted): `--resume` must not kill that warden's agents as "the dead
// supervisor's leftovers".
func TestResumeNeverKillsALiveWardensAgents(t *testing.T) {
	defer proctest.AssertNone(t)
	other := workerTeam(t, "worker:steps=1000")
	cmdA, outA := runWarden(t, "run", other)
	outA.waitFor(t, "CHECKPOINT: T1", 1)

	team := workerTeam(t, "worker:steps=2")
	dir := filepath.Join(filepath.Dir(team), ".warden")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	crafted := fmt.Sprintf(`{"team":"lifecycle","pid":%d,"running":true,"agents":[],"tasks":[]}`, cmdA.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(crafted), 0o600); err != nil {
		t.Fatal(err)
	}
	cmdB, outB := runWarden(t, "run", team, "--resume")
	if err := cmdB.Wait(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, outB.dump())
	}
	if outB.count("WARNING: state.json names pid") != 1 {
		t.Errorf("no warning about the live pid:\n%s", outB.dump())
	}
	// The other team's agent lives on and answers again.
	n := outA.count("CHECKPOINT: T1")
	outA.waitFor(t, "CHECKPOINT: T1", n+2)
	if outA.count("TASK FAILED") != 0 {
		t.Errorf("the other team lost its agent:\n%s", outA.dump())
	}
	cmdA.Process.Signal(os.Interrupt)
	if err := cmdA.Wait(); exitCode(err) != 130 {
		t.Fatalf("the other team's warden: exit %d after Ctrl-C, want 130\n%s", exitCode(err), outA.dump())
	}
}
