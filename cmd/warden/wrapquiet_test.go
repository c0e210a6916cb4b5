//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// warden wrap keeps out of the way of a user's session: a CLI that keeps
// warden's protocol where it keeps instructions (Claude Code's appended
// system prompt; here the fake TUI as profile claude) gets no first prompt
// — nothing is typed into a session nobody used — and however many
// checkpoint intervals pass (--checkpoint-interval 1s) no request is typed
// until the user has typed something; then one request, at the turn's
// end, recorded underneath; and none again while the user is away.
func TestWrapAsksOnlyAfterTheUsersWork(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	// The agent: this test binary as the fake TUI, the arguments profile
	// claude adds (--append-system-prompt, --settings) passed through.
	script := filepath.Join(dir, "agent.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec env -u WARDEN_TEST_MAIN "+fakeagent.EnvMode+"=tui-answer "+
		strings.Join(fakeagent.Command("tui-answer"), " ")+` "$@"`+"\n"), 0o700)
	state := filepath.Join(dir, "state")
	cmd := warden("wrap", "--state-dir", state, "--name", "me", "--task", "T9", "--profile", "claude", "--checkpoint-interval", "1s", "--", script)
	// The user's terminal answers the TUI's device-attributes query, as a
	// terminal does (under wrap warden leaves that to it).
	u := startOnPty(t, cmd, 120, 40, map[string]string{"\x1b[c": "\x1b[?62;1;6;22c"})
	eventsOf := func() string { b, _ := os.ReadFile(filepath.Join(state, "events.jsonl")); return string(b) }
	requests := func() int { return strings.Count(eventsOf(), `"event":"checkpoint_requested"`) }
	u.waitFor(t, "ready")
	time.Sleep(3500 * time.Millisecond) // three intervals and more
	before := u.output()
	if regexp.MustCompile(`❯ [^\s\x1b]`).MatchString(before) || requests() != 0 { // the TUI's composer echoes what is typed
		t.Fatalf("something was typed into the session before the user typed (%d requests):\n%q\n%s", requests(), before, eventsOf())
	}
	u.f.Write([]byte("hello agent\r"))
	u.waitFor(t, "❯ hello agent")
	u.waitFor(t, "❯ CHECKPOINT REQUEST: T9")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(eventsOf(), `"checkpoint_received"`) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	time.Sleep(3500 * time.Millisecond) // the user is away: no request again
	if n := requests(); n != 1 || !strings.Contains(eventsOf(), `"checkpoint_received"`) {
		t.Errorf("%d checkpoint requests, want the one after the user's work, answered:\n%s", n, eventsOf())
	}
	u.f.Write([]byte("quit\r"))
	if code := u.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
