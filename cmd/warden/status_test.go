//go:build !e2e

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// warden status before any run says so in a sentence (it printed the raw
// "open …/state.json" error), and after warden died — state.json still
// says running, no warden holds the lock — says the supervisor is not
// running, shows no agent running, and names how to carry the run on;
// --json says the same (supervisor_died, each agent at work "unknown").
func TestStatusSaysWhatThereIsToSee(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	err := cmdStatus([]string{"--state-dir", dir}, &out, &errOut)
	if err == nil || !strings.HasPrefix(err.Error(), "no run yet: the state dir "+dir+" has no state.json") ||
		strings.Contains(err.Error(), "open ") {
		t.Errorf("status before any run: %v", err)
	}

	d, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	d.WriteSnapshot(state.Snapshot{Team: "night", RunID: "R1", Pid: 4194999, Running: true, StartedAt: now.Add(-time.Hour),
		UpdatedAt: now.Add(-12 * time.Minute),
		Agents: []state.AgentStatus{{Name: "w1", State: state.Running, Task: "T1", Attempt: 1},
			{Name: "w2", State: state.Waiting, Task: "T2", Attempt: 1, Dialog: "Bash command"}, {Name: "w3", State: state.Idle}},
		Tasks: []queue.Status{{ID: "T1", State: queue.Running, Owner: "w1"}, {ID: "T2", State: queue.Running, Owner: "w2"}}})
	out.Reset()
	if err := cmdStatus([]string{"--state-dir", dir}, &out, &errOut); err != nil {
		t.Fatalf("status: %v", err)
	}
	text := out.String()
	for _, want := range []string{"== night (not running: warden died)",
		"warden is not running: its supervisor (pid 4194999) died without stopping the team, last update 12 min ago; `warden run` with the team file carries it on",
		"agent w1           unknown   task T1", "was running when warden died", "was waiting when warden died",
		"agent w3           idle"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, " running   task") || strings.Contains(text, "(running)") {
		t.Errorf("status shows something running:\n%s", text)
	}
	out.Reset()
	if err := cmdStatus([]string{"--state-dir", dir, "--json"}, &out, &errOut); err != nil {
		t.Fatalf("status --json: %v", err)
	}
	var st struct {
		Running bool `json:"running"`
		Died    bool `json:"supervisor_died"`
		Agents  []struct{ State string }
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || st.Running || !st.Died || st.Agents[0].State != "unknown" || st.Agents[2].State != "idle" {
		t.Errorf("status --json: %v %+v\n%s", err, st, out.String())
	}
}
