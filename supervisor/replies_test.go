//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// A TUI asks the terminal for its attributes (DA1). warden's emulator
// answers for Claude Code's profile, and sends Gemini CLI's nothing: Gemini
// reads an answer that reaches it late as keys, and the "1" in it picks
// "1. Allow once" in its approval dialog (measured: the answer written
// into the open dialog ran the shell command).
func TestTerminalRepliesNeverReachGemini(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "1s"`,
		fakeAgent{name: "asks-as-claude", mode: "rawecho:query", profile: "claude"},
		fakeAgent{name: "asks-as-gemini", mode: "rawecho:query", profile: "gemini"})
	team, _, wait := startTeamCfg(t, cfg)
	logOf := func(agent string) string {
		b, _ := os.ReadFile(filepath.Join(cfg.StateDir, "logs", agent+".log"))
		return string(b)
	}
	const answer = `"\x1b[?62;` // the answer, as the fake writes back what it reads
	waitForD(t, "the DA1 answer at the claude-profile agent", 20*time.Second, func() bool {
		return strings.Contains(logOf("asks-as-claude"), answer)
	})
	time.Sleep(500 * time.Millisecond) // the gemini agent asked at the same time
	team.Force()
	wait()
	if g := logOf("asks-as-gemini"); !strings.Contains(g, "ready") || strings.Contains(g, answer) {
		t.Errorf("the gemini-profile agent's terminal log %q: want it started and no answer sent", g)
	}
}
