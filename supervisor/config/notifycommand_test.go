//go:build !e2e

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// [[notify]] commands are checked like agents' commands: a bare name not
// on PATH (or not executable there) is a warning at its command key, a
// path that does not exist or cannot be run is an error there; a file
// with errors still has its warnings, for validate to show beside them.
func TestNotifyCommandsCheckedLikeAgents(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	os.WriteFile(filepath.Join(bin, "notify-me"), []byte("#!/bin/sh\n"), 0o700)
	os.WriteFile(filepath.Join(bin, "not-exec"), []byte("#!/bin/sh\n"), 0o600)
	t.Setenv("PATH", bin)
	path := filepath.Join(dir, "team.toml")
	head := "name = \"n\"\n[[agent]]\nname = \"a\"\ncommand = [\"notify-me\"]\n"
	notify := func(argv string) string { return "[[notify]]\nevents = [\"team_done\"]\ncommand = [" + argv + "]\n" }

	os.WriteFile(path, []byte(head+notify(`"notify-me", "x"`)+notify(`"no-such-notifier"`)+notify(`"not-exec"`)+
		notify(`"/bin/sh", "-c", "true"`)), 0o600)
	team, ws, err := LoadWithWarnings(path)
	if err != nil || team == nil {
		t.Fatalf("LoadWithWarnings: %v", err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{
		path + `:10:1: warning: [[notify]] command "no-such-notifier" is not on PATH (is it installed?)`,
		path + `:13:1: warning: [[notify]] command "not-exec" is not on PATH (is it installed?)`,
	}
	if len(got) != len(want) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d:\n%s\nwant it to begin\n%s", i, got[i], want[i])
		}
	}

	// A path that does not exist is an error at its key; the warning of the
	// bare name before it is still given.
	os.WriteFile(path, []byte(head+notify(`"no-such-notifier"`)+notify(`"/no/such/notify.sh"`)), 0o600)
	team, ws, err = LoadWithWarnings(path)
	errs, ok := AsErrors(err)
	if team != nil || !ok || len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), path+`:10:1: command "/no/such/notify.sh" does not exist`) {
		t.Fatalf("a notify path that does not exist: team %v, %v", team, err)
	}
	if len(ws) != 1 || !strings.HasPrefix(ws[0].String(), path+`:7:1: warning: [[notify]] command "no-such-notifier"`) {
		t.Errorf("warnings of a file with errors: %v", ws)
	}
	if _, err := Load(path); err == nil {
		t.Error("Load took a notify path that does not exist")
	}
}
