//go:build !e2e

package profile

import (
	"strings"
	"testing"
)

// Which command lines run the Codex TUI itself, and what the server gets.
func TestArgvOfTheTUIAndItsServer(t *testing.T) {
	for _, c := range []struct {
		argv []string
		tui  bool
	}{
		{[]string{"codex"}, true},
		{[]string{"/usr/bin/node", "/x/codex.js", "-m", "o3", "--ask-for-approval", "never"}, true},
		{[]string{"codex", "exec", "do it"}, false},
		{[]string{"codex", "resume", "--last"}, false},
		{[]string{"codex", "--remote", "ws://h:1"}, false},
		{[]string{"sh", "-c", "codex"}, false},
		{[]string{"my-codex-wrapper"}, false},
	} {
		if got := CodexRunsTUI(c.argv); got != c.tui {
			t.Errorf("CodexRunsTUI(%q) = %v, want %v", c.argv, got, c.tui)
		}
	}
	got := CodexServerArgv([]string{"node", "codex.js", "-cmodel=o3", "--config=a=1", "--enable", "x", "--strict-config", "-m", "o3", "--", "-c", "y=2"}, "/s")
	want := "node codex.js app-server --listen unix:///s -c model=o3 --config=a=1 --enable x --strict-config"
	if strings.Join(got, " ") != want {
		t.Errorf("CodexServerArgv = %q, want %q", strings.Join(got, " "), want)
	}
}
