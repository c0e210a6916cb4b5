//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warden validate shows a team file's warnings beside its errors, in the
// file's order: a [[notify]] command not on PATH (a warning, as for an
// agent), an unknown key (an error), exit 2; once the error is fixed, the
// warning alone and ok, exit 0.
func TestValidateShowsWarningsBesideErrors(t *testing.T) {
	dir := t.TempDir()
	team := filepath.Join(dir, "team.toml")
	body := "name = \"t\"\n[[notify]]\nevents = [\"team_done\"]\ncommand = [\"no-such-notifier\"]\n" +
		"[[agent]]\nname = \"a\"\ncommand = [\"true\"]\n"
	os.WriteFile(team, []byte(body+"comand = [\"true\"]\n"), 0o600)
	out, err := warden("validate", team).CombinedOutput()
	warning := team + `:4:1: warning: [[notify]] command "no-such-notifier" is not on PATH (is it installed?)`
	w, e := strings.Index(string(out), warning), strings.Index(string(out), team+`:8:1: unknown key "comand"`)
	if exitCode(err) != 2 || w < 0 || e < w || !strings.Contains(string(out), "1 error, 1 warning") {
		t.Errorf("exit %d, want 2 with the warning, then the error:\n%s", exitCode(err), out)
	}
	os.WriteFile(team, []byte(body), 0o600)
	out, err = warden("validate", team).CombinedOutput()
	if exitCode(err) != 0 || !strings.Contains(string(out), warning) || !strings.Contains(string(out), "ok: team \"t\", 1 agent, 0 tasks, 1 warning") {
		t.Errorf("exit %d, want 0 with the warning:\n%s", exitCode(err), out)
	}
}
