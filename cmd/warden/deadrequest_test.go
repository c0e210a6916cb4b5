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

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// heldTUITeam writes a held team (holder = true) of one fake TUI, "tui"
// (Claude's profile, tui-answer), on task T1.
func heldTUITeam(t testing.TB) string { return tuiTeam(t, "tui", "holder = true\n") }

// tuiTeam writes a team called name (header: keys of its own) of one fake
// TUI, "tui" (Claude's profile, tui-answer), on task T1.
func tuiTeam(t testing.TB, name, header string) string {
	t.Helper()
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	argv := fakeagent.Command("tui-answer")
	toml := fmt.Sprintf(`name = %q
%scheckpoint_interval = "150ms"
checkpoint_timeout = "5s"
shutdown_timeout = "2s"
[[agent]]
name = "tui"
profile = "claude"
command = [%q, %q]
env = { %s = "tui-answer", %s = %q, GORACE = "atexit_sleep_ms=0" }
[[task]]
id = "T1"
prompt = "Answer like a TUI."
`, name, header, argv[0], argv[1], fakeagent.EnvMode, fakeagent.EnvOwner, owner)
	team := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(team, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return team
}

// A warden killed (-9) between typing a TUI's checkpoint request and its
// Enter (the profile's EnterDelay) leaves the request in the input box,
// unsubmitted. The warden that takes the session back presses its Enter:
// the agent answers it and every later request (before the fix: a draft
// in the box, never a turn boundary, so no request was ever typed again —
// found by TestRandomKillMoments, seed 1).
func TestTUITakenBackWithItsRequestNotSubmitted(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTUITeam(t)
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (10%)", 1)
	answered(t, state, "tui")
	inFlight(t, state, "tui") // its request being typed now; its Enter 700 ms after the paste
	time.Sleep(250 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	time.Sleep(300 * time.Millisecond)
	before := len(readEvents(t, state))
	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CHECKPOINT: T1 - implementing", 2)
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	out2.mu.Lock()
	stderr := out2.stderr.String()
	out2.mu.Unlock()
	if !strings.Contains(stderr, "a checkpoint request a dead warden typed and did not submit") {
		t.Errorf("the request left in the box was not taken for what it is:\n%s", stderr)
	}
	for _, e := range readEvents(t, state)[before:] {
		if e.Event == "agent_restarted" {
			t.Errorf("the TUI was restarted: %+v", e)
		}
	}
}

// A warden killed (-9) while it types a TUI's first prompt, or before its
// Enter, leaves the prompt in the input box (state.json says the session
// unprompted). The next warden does not take that session back — it
// would sit on the draft for good: no request is ever typed into a box
// that holds one (found by TestRandomKillMoments: a TUI silent for the
// whole final run) — but stops it and starts the task afresh: a new
// process, its prompt typed whole, its checkpoints answered.
func TestTUIKilledBeforeItsPromptWasTakenStartsAfresh(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTUITeam(t)
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, _ := runWarden(t, "run", team)
	held := 0
	for deadline := time.Now().Add(30 * time.Second); held == 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("state.json never said the session unprompted")
		}
		b, _ := os.ReadFile(filepath.Join(state, "state.json"))
		var snap struct {
			Agents []struct {
				Pid        int  `json:"pid"`
				Unprompted bool `json:"unprompted"`
			} `json:"agents"`
		}
		if json.Unmarshal(b, &snap) == nil && len(snap.Agents) == 1 && snap.Agents[0].Unprompted && snap.Agents[0].Pid > 0 {
			held = snap.Agents[0].Pid
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := len(readEvents(t, state))
	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CHECKPOINT: T1 - implementing", 1)
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	fresh := 0
	for _, e := range readEvents(t, state)[before:] {
		if e.Event == "agent_started" {
			if e.TakenBack || e.Pid == held {
				t.Errorf("the session whose prompt was never taken was taken back: %+v", e)
			}
			fresh = e.Pid
		}
	}
	if fresh == 0 {
		t.Fatal("no session started afresh")
	}
	if !proctest.GroupGone(held) {
		t.Errorf("the held process %d, its prompt never taken, still runs", held)
	}
}
