//go:build e2e

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

// A TUI agent with restart = "never" that prints on its alternate screen
// all the time but never checkpoints: the stuck warning does not promise a
// restart that will not come (it says the agent is stopped, not
// restarted, and why), and the TASK FAILED line carries what it showed
// last — it left its alternate screen when it was stopped, and its last
// lines used to be read off the empty main screen ("it showed nothing").
func TestStalledAgentWithoutRestartSaysSoAndShowsItsLastLines(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, defaultRatios+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:chatty=1:alt=1", profile: "codex", restart: "never"})
	res, stdout, _ := runTeam(t, cfg, 30*time.Second)
	if res.ExitCode() != 1 {
		t.Fatalf("result %+v\n%s", res, stdout)
	}
	if strings.Contains(stdout, "before a restart") {
		t.Errorf("a restart is promised to an agent with restart = never:\n%s", stdout)
	}
	if want := "WARNING: w1 shows no progress for 6s on T1: asking it once more; without an answer within 100ms it is stopped, not restarted (restart = never)"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	var failed string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "TASK FAILED: T1 ") {
			failed = l
		}
	}
	if !strings.Contains(failed, "its last lines: thinking about it, ") || strings.Contains(failed, "it showed nothing") {
		t.Errorf("the TASK FAILED line does not carry what the agent showed: %q\n%s", failed, stdout)
	}
}
