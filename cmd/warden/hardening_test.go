package main

import (
	"bufio"
	"encoding/json"
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
