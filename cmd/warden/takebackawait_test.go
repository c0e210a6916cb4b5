//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// A session taken back mid-turn awaits the answer to the request the dead
// warden typed (state.json's requested_at): the new warden types no
// request into that turn — one more would be one more turn of the model —
// and the answer, when it comes, answers that request (trigger request).
// Failed before: the agent's turn quiet (the fake model thinks 4 s in
// silence, as a real CLI's model does), the new warden found an interval
// gone since the last checkpoint and typed a request at once.
func TestTakenBackMidTurnTypesNoRequestIntoTheTurn(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=40:slow=4s")
	b, _ := os.ReadFile(team) // 4 s a turn: checkpoint_timeout 10 s
	os.WriteFile(team, []byte(strings.Replace(string(b), `checkpoint_timeout = "2s"`, `checkpoint_timeout = "10s"`, 1)), 0o600)
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (2%)", 1) // lines wait 20 s
	inFlight(t, state, "w1")
	// state.json is written by whoever publishes next when a write is
	// under way: the kill comes once it says so.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		snap, _ := os.ReadFile(filepath.Join(state, "state.json"))
		if strings.Contains(string(snap), `"requested_at"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state.json does not say a request is awaited:\n%s", snap)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := len(readEvents(t, state))

	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CHECKPOINT: T1 - implementing", 2)
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	b, _ = os.ReadFile(filepath.Join(state, "events.jsonl"))
	var first []string
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Event   string `json:"event"`
			Trigger string `json:"trigger"`
		}
		if i < before || json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		switch e.Event {
		case "checkpoint_requested":
			first = append(first, e.Event)
		case "checkpoint_received":
			first = append(first, e.Event+" "+e.Trigger)
		}
	}
	if len(first) < 2 || first[0] != "checkpoint_received request" || first[1] != "checkpoint_requested" {
		t.Errorf("the new warden's checkpoint events begin %v: want the answer in flight (trigger request) first, then a request\n%s",
			first, out2.dump())
	}
}
