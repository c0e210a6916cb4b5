//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// heldEvent is one line of events.jsonl, the fields these tests read.
type heldEvent struct {
	Event     string   `json:"event"`
	Agent     string   `json:"agent"`
	Pid       int      `json:"pid"`
	How       string   `json:"how"`
	Agents    []string `json:"agents"`
	TakenBack bool     `json:"taken_back"`
	// CheckpointID and Trigger of checkpoint_received, Reason of
	// agent_restarted and agent_force_terminated.
	CheckpointID string `json:"checkpoint_id"`
	Trigger      string `json:"trigger"`
	Reason       string `json:"reason"`
	SessionID    string `json:"session_id"`
}

func readEvents(t testing.TB, state string) []heldEvent {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	var out []heldEvent
	for _, l := range strings.Split(string(b), "\n") {
		var e heldEvent
		if json.Unmarshal([]byte(l), &e) == nil && e.Event != "" {
			out = append(out, e)
		}
	}
	return out
}

// inFlight waits until every agent named has a checkpoint request it has
// not answered yet (its last request after its last record).
func inFlight(t testing.TB, state string, agents ...string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		last := map[string]string{}
		for _, e := range readEvents(t, state) {
			if e.Event == "checkpoint_requested" || e.Event == "checkpoint_received" {
				last[e.Agent] = e.Event
			}
		}
		all := true
		for _, a := range agents {
			all = all && last[a] == "checkpoint_requested"
		}
		if all {
			return
		}
	}
	t.Fatalf("no moment with a request in flight for every agent of %v", agents)
}

// answered waits until every agent named has answered its last request
// (its last record after its last request).
func answered(t testing.TB, state string, agents ...string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		last := map[string]string{}
		for _, e := range readEvents(t, state) {
			if e.Event == "checkpoint_requested" || e.Event == "checkpoint_received" {
				last[e.Agent] = e.Event
			}
		}
		all := true
		for _, a := range agents {
			all = all && last[a] == "checkpoint_received"
		}
		if all {
			return
		}
	}
	t.Fatalf("no moment with every agent of %v answered", agents)
}

// warden killed with -9 mid-turn, with a checkpoint request of each agent
// in flight, and run again: every live agent is taken back from the
// holder (same pids, none restarted, its prompt not typed again), each
// answer is recorded exactly once — the one in flight too, which came
// while no warden read —, run_started says readopted, and after warden
// stop nothing is left.
func TestKill9MidTurnThenRunTakesTheAgentsBack(t *testing.T) {
	// The answers in flight come while no warden reads (the holder keeps
	// them), or once the next warden reads again.
	t.Run("answer buffered", func(t *testing.T) { kill9ThenTakeBack(t, 600*time.Millisecond, false) })
	t.Run("answer later", func(t *testing.T) { kill9ThenTakeBack(t, 0, false) })
	// No answer in flight; each agent draws its last answer, recorded
	// before warden died, again while no warden reads (as a TUI redraws).
	t.Run("last answer drawn again", func(t *testing.T) { kill9ThenTakeBack(t, 300*time.Millisecond, true) })
}

func kill9ThenTakeBack(t *testing.T, away time.Duration, repaint bool) {
	defer proctest.AssertNone(t)
	agents := []string{"w1", "w2", "w3"}
	mode := "worker:steps=40:slow=300ms:repaint=1"
	if repaint {
		mode = "worker:steps=40:slow=10ms:repaint=1" // answered at once: rarely in flight
	}
	team := heldTeam(t, "", mode, mode, mode)
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	for i := range agents {
		out.waitFor(t, fmt.Sprintf("CHECKPOINT: T%d - implementing (5%%)", i+1), 1)
	}
	first := startedPids(t, state)
	if repaint {
		answered(t, state, agents...)
	} else {
		inFlight(t, state, agents...)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := len(readEvents(t, state))
	if repaint {
		for _, a := range agents {
			syscall.Kill(first[a][len(first[a])-1], syscall.SIGUSR1)
		}
	}
	time.Sleep(away)

	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CARRYING ON:", 1)
	for i := range agents {
		out2.waitFor(t, fmt.Sprintf("CHECKPOINT: T%d - implementing", i+1), 2)
	}
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	if !strings.Contains(out2.all[0], "taken back mid-turn from the holder: w1 (T1, pid ") {
		t.Errorf("the first line does not say the agents were taken back:\n%s", out2.dump())
	}
	out2.mu.Lock()
	stderr := out2.stderr.String()
	out2.mu.Unlock()
	if n := strings.Count(stderr, "taken back from the holder: "); n != len(agents) {
		t.Errorf("%d agents taken back by the log, want %d", n, len(agents))
	}
	// At least once an agent: its repaint, and the end of its log read again.
	if repaint && strings.Count(stderr, "drawn again after the take-back: not recorded twice") < len(agents) {
		t.Errorf("not every last answer drawn again was taken for what it is:\n%s", stderr)
	}
	if away > 0 && strings.Contains(stderr, "buffered=0 exited") {
		t.Errorf("an answer in flight was not in what the holder kept while no warden read:\n%s", stderr)
	}
	after := readEvents(t, state)[before:]
	started, readopted := 0, false
	for _, e := range after {
		switch e.Event {
		case "agent_started":
			started++
			if !e.TakenBack || len(first[e.Agent]) == 0 || e.Pid != first[e.Agent][len(first[e.Agent])-1] {
				t.Errorf("%s: agent_started pid %d taken_back %v; first run's pids %v", e.Agent, e.Pid, e.TakenBack, first[e.Agent])
			}
		case "agent_restarted":
			t.Errorf("%s restarted after warden came back", e.Agent)
		case "run_started":
			readopted = e.How == "readopted" && len(e.Agents) == len(agents)
		}
	}
	if started != len(agents) || !readopted {
		t.Errorf("%d agents started after warden came back (want %d, each taken back), run_started readopted %v", started, len(agents), readopted)
	}
	promptedOnceAndRecordedOnce(t, state, agents, append(append([]string{}, out.all...), out2.all...), first)
}

// An agent that died while no warden ran is found exited at the take-back:
// a crash of its session, restarted by its policy from its checkpoint; the
// live one is taken back; nothing is left after warden stop.
func TestAgentDeadAtTakeBackIsACrash(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=40:slow=100ms", "worker:steps=40:slow=100ms")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	out.waitFor(t, "CHECKPOINT: T2 - implementing (5%)", 1)
	first := startedPids(t, state)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := len(readEvents(t, state))
	syscall.Kill(first["w1"][0], syscall.SIGKILL)
	time.Sleep(200 * time.Millisecond)

	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CHECKPOINT: T1 - implementing", 1)
	out2.waitFor(t, "CHECKPOINT: T2 - implementing", 1)
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	restarted := map[string]int{}
	started := map[string][]heldEvent{}
	for _, e := range readEvents(t, state)[before:] {
		switch e.Event {
		case "agent_restarted":
			restarted[e.Agent]++
		case "agent_started":
			started[e.Agent] = append(started[e.Agent], e)
		}
	}
	if restarted["w1"] != 1 || restarted["w2"] != 0 {
		t.Errorf("restarts %v, want w1 once (it died while no warden ran), w2 never", restarted)
	}
	if s := started["w1"]; len(s) != 2 || !s[0].TakenBack || s[1].TakenBack || s[1].Pid == first["w1"][0] {
		t.Errorf("w1's sessions after warden came back: %+v (want the dead one taken back, then a new one)", s)
	}
	if s := started["w2"]; len(s) != 1 || !s[0].TakenBack || s[0].Pid != first["w2"][0] {
		t.Errorf("w2's sessions after warden came back: %+v (want its live one taken back)", s)
	}
	log, _ := os.ReadFile(filepath.Join(state, "logs", "w1.log"))
	if !strings.Contains(string(log), "RESUME-SEEN: You are resuming task T1") {
		t.Errorf("w1's new session did not resume from its checkpoint:\n%s", log)
	}
}

// A TUI (Claude's profile, drawn on the alternate screen) taken back: the
// new warden's screen starts from what the holder kept, the agent goes on
// answering, every answer recorded once, none restarted.
func TestTUITakenBack(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTUITeam(t)
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (20%)", 1)
	first := startedPids(t, state)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	time.Sleep(300 * time.Millisecond)
	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CHECKPOINT: T1 - implementing", 2)
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	seen := map[string]int{}
	for _, l := range append(append([]string{}, out.all...), out2.all...) {
		if p, ok := strings.CutPrefix(l, "CHECKPOINT: T1 - implementing ("); ok {
			pct, _, _ := strings.Cut(p, ")")
			seen[pct]++
		}
	}
	for pct, n := range seen {
		if n != 1 {
			t.Errorf("%s recorded %d times: %v", pct, n, seen)
		}
	}
	pids := startedPids(t, state)["tui"]
	if len(pids) != 2 || pids[1] != first["tui"][0] {
		t.Errorf("agent_started pids %v: want the first one taken back, %v", pids, first["tui"])
	}
}
