//go:build e2e

package realclis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/testrig/proctest"
)

// checkChannelWaiting: for a CLI read through its app-server, agent_waiting
// says what the approval request says — its own reason and the command —
// whether the request reached warden first or the TUI drew the dialog
// first (a race: the request came first in most runs on 0.169.0, not in
// one of about five, nor on 0.171.0; Codex draws the reason and the
// command on its screen too). Which came first is logged.
func checkChannelWaiting(t testing.TB, c dialogCLI, waiting map[string]any) {
	t.Helper()
	if !c.channel {
		return
	}
	text, _ := waiting["text"].(string)
	if !strings.Contains(text, "Fetch the probe page into fetched.txt") || !strings.Contains(text, probeCommand) {
		t.Errorf("agent_waiting does not say the approval request's reason and command: %v", waiting)
	}
	t.Logf("agent_waiting came from %s", map[bool]string{true: "the screen", false: "the app-server's request"}[waiting["on_screen"] == true])
}

// wardenForSubtests builds warden and points WARDEN_BIN at it for the
// parallel subtests of t, which may not set the environment themselves.
func wardenForSubtests(t *testing.T) {
	warden, err := buildWarden()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_BIN", warden)
}

// realCLIsTwoAtOnce runs fn for each cli as parallel subtests — two at
// once, -parallel being GOMAXPROCS — with WARDEN_BIN set for them, and
// checks that no process is left once all of them are done (a subtest's
// own check would see its sibling's CLI).
func realCLIsTwoAtOnce(t *testing.T, clis []string, fn func(t *testing.T, cli string)) {
	wardenForSubtests(t)
	defer proctest.AssertNone(t)
	t.Run("each", func(t *testing.T) {
		for _, cli := range clis {
			t.Run(cli, func(t *testing.T) {
				t.Parallel()
				fn(t, cli)
			})
		}
	})
}

// ranProbe says whether the command a dialog stopped left its file in
// project.
func ranProbe(project, file string) bool {
	_, err := os.Stat(filepath.Join(project, file))
	return err == nil
}

// logUnderDialog logs, in one line scripts/dialogs-under-load.sh counts,
// how many main requests reached the model while a dialog showed (the
// CLIs' own side calls, such as Codex's title, are not main requests) and
// whether a command the dialog stopped ran.
func logUnderDialog(t testing.TB, requests int, ran bool) {
	t.Helper()
	t.Logf("under the dialog: requests=%d command_ran=%v", requests, ran)
}
