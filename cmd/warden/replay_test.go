//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/testrig/proctest"
)

// recordTUISession runs a team whose one agent draws like a TUI (Claude's
// profile), lets it answer a checkpoint request, and stops the team with
// Ctrl-C (warden types /exit, then TERMs the TUI, which leaves its screen
// as it was). It returns the team file and the agent's session id.
func recordTUISession(t *testing.T) (team, session string) {
	t.Helper()
	team = tuiTeam(t, "replay", "")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (10%)", 1)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("warden run: exit %d after Ctrl-C\n%s", exitCode(err), out.dump())
	}
	events, _ := os.ReadFile(filepath.Join(filepath.Dir(team), ".warden", "events.jsonl"))
	for _, line := range strings.Split(string(events), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["event"] == "agent_started" {
			session, _ = e["session_id"].(string)
		}
	}
	if session == "" {
		t.Fatalf("no agent_started event with a session_id:\n%s", events)
	}
	return team, session
}

// screenOf feeds raw terminal output into a fresh 200x50 emulator.
func screenOf(raw []byte) string {
	scr := protocol.NewScreen(hclog.NewNullLogger(), 200, 50, nil)
	defer scr.Close()
	scr.Write(raw)
	var rows []string
	for _, r := range scr.Rows() {
		rows = append(rows, r.Text)
	}
	return strings.Join(rows, "\n")
}

// warden replay plays the recorded session: under a pipe, at a high speed,
// it prints exactly the bytes the agent wrote (its terminal log), so the
// screen it leaves is the agent's last screen; --list shows the session;
// Ctrl-C stops it.
func TestReplayPlaysTheRecordedSession(t *testing.T) {
	defer proctest.AssertNone(t)
	team, session := recordTUISession(t)
	stateDir := filepath.Join(filepath.Dir(team), ".warden")

	start := time.Now()
	var stdout, stderr bytes.Buffer
	cmd := warden("replay", team, "tui", "--speed", "1000")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden replay: %v\n%s", err, stderr.String())
	}
	log, err := os.ReadFile(filepath.Join(stateDir, "logs", "tui.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), log) {
		t.Fatalf("replay printed %d bytes, the agent wrote %d (first difference at %d)",
			stdout.Len(), len(log), firstDifference(stdout.Bytes(), log))
	}
	final := screenOf(stdout.Bytes())
	if final != screenOf(log) || !strings.Contains(final, "Estimated Progress: 10%") || !strings.Contains(final, "> /exit") {
		t.Errorf("the replay's last screen:\n%s", final)
	}
	// The pace itself (divided by --speed, idle capped) is
	// TestPlayKeepsThePaceCapsIdleAndDividesBySpeed's, on a fake clock;
	// here only a replay that hangs fails (beside a whole test run the
	// command took 6 s, most of it starting a -race binary).
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("replay at 1000x took %v", el)
	}

	// The same session named by a prefix of its id, through --state-dir.
	out, err := warden("replay", "--state-dir", stateDir, "--session", session[:6], "--speed", "1000", "tui").Output()
	if err != nil || !bytes.Equal(out, log) {
		t.Errorf("--session %s: %v, %d bytes", session[:6], err, len(out))
	}
	out, err = warden("replay", "--list", team, "tui").CombinedOutput()
	if err != nil || !strings.Contains(string(out), session+"  ") || !strings.Contains(string(out), "200x50") ||
		!strings.Contains(string(out), "warden: tui on T1, attempt 1, session "+session) {
		t.Errorf("--list: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--session", "zzzz", team, "tui"}, 1, `has no recorded session "zzzz"`},
		{[]string{team, "nobody"}, 1, `no recording of agent "nobody"`},
		{[]string{team, "tui", "extra"}, 2, "usage: warden replay"},
		{[]string{"--speed", "0", team, "tui"}, 2, "--speed must be more than 0"},
	} {
		out, err := warden(append([]string{"replay"}, c.args...)...).CombinedOutput()
		if exitCode(err) != c.code || !strings.Contains(string(out), c.says) {
			t.Errorf("replay %v: exit %d, want %d saying %q:\n%s", c.args, exitCode(err), c.code, c.says, out)
		}
	}

	// Ctrl-C stops a (very slow) replay at once, exit 130.
	slow := warden("replay", team, "tui", "--speed", "0.001")
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	stopped := time.Now()
	slow.Process.Signal(os.Interrupt)
	if err := slow.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130", exitCode(err))
	}
	if el := time.Since(stopped); el > time.Second {
		t.Errorf("the replay stopped %v after Ctrl-C", el)
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
