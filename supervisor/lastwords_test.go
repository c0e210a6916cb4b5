package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
)

// A TUI agent (read through the terminal emulator) that refuses its
// configuration and exits at once: the WARNING line of its quick exit and
// the TASK FAILED line carry what its screen showed, without escape codes,
// and agent_failed names the lines.
func TestQuickExitOfATUIAgentCarriesItsScreen(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "cli", mode: "refuse:1:config broken", profile: "codex", restart: "on-failure", maxRestarts: 1})
	res, stdout, _ := runTeam(t, cfg, 20*time.Second)
	if res.ExitCode() != 1 {
		t.Fatalf("result %+v\n%s", res, stdout)
	}
	var warning, failed string
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "WARNING: cli ended (exit code 1)"):
			warning = l
		case strings.HasPrefix(l, "TASK FAILED: T1 "):
			failed = l
		}
	}
	for _, l := range []string{warning, failed} {
		if !strings.Contains(l, "its last lines: fake-cli 1.0 | Error: config broken") || strings.Contains(l, "\x1b") {
			t.Errorf("line %q does not carry the screen's last lines as text:\n%s", l, stdout)
		}
	}
	e := firstEvent(eventsOf(t, cfg), event.AgentFailed)
	if e == nil || !strings.Contains(strings.Join(toStrings(e["last_lines"]), "\n"), "config broken") {
		t.Errorf("agent_failed %v lacks last_lines", e)
	}
}

// A long run that ends with an exit is not a quick exit: no WARNING line.
func TestOrdinaryCrashHasNoQuickExitWarning(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, "", fakeAgent{name: "c", mode: "crash:5500ms:3", restart: "never"})
	res, stdout, _ := runTeam(t, cfg, 20*time.Second)
	if res.ExitCode() != 1 {
		t.Fatalf("result %+v", res)
	}
	if strings.Contains(stdout, "after it started") {
		t.Errorf("a crash after 5.5 s is reported as a quick exit:\n%s", stdout)
	}
	if !strings.Contains(stdout, "WARNING: c failed (restart = never; its last lines: running | crashing)") {
		t.Errorf("the task-less agent's failure does not say what it showed:\n%s", stdout)
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
