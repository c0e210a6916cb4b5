//go:build !e2e

package runner

import (
	"strings"
	"testing"
)

// An agent gets a clean terminal environment: started from inside tmux (or
// kitty, iTerm2, VS Code's terminal), warden passes on none of the
// variables that name that outer terminal — Claude Code read TMUX and told
// the user to fix ~/.tmux.conf —, keeps the rest, sets its own TERM and
// COLORTERM, and lets an agent's env in the team file set any of them.
func TestAgentsGetACleanTerminalEnvironment(t *testing.T) {
	outer := map[string]string{
		"TMUX": "/tmp/tmux-1000/default,4242,0", "TMUX_PANE": "%3", "TERM_PROGRAM": "tmux",
		"TERM_PROGRAM_VERSION": "3.4", "STY": "1234.pts-0", "KITTY_WINDOW_ID": "2", "ITERM_SESSION_ID": "w0t0p0",
		"LC_TERMINAL": "iTerm2", "WEZTERM_PANE": "0", "COLUMNS": "211", "LINES": "57", "TERM": "tmux-256color",
	}
	for k, v := range outer {
		t.Setenv(k, v)
	}
	t.Setenv("WARDEN_TEST_KEPT", "yes")
	t.Setenv("TMUX_TMPDIR", "/tmp/mine") // where tmux keeps its sockets: the user's setting, not the terminal's
	env := buildEnv([]string{"LC_TERMINAL=chosen"}, "tag")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v // the last wins, as exec.Cmd takes it
	}
	for k := range outer {
		switch k {
		case "TERM":
			if got[k] != "xterm-256color" {
				t.Errorf("TERM=%q, want warden's xterm-256color", got[k])
			}
		case "LC_TERMINAL":
			if got[k] != "chosen" {
				t.Errorf("LC_TERMINAL=%q, want the agent's own env's", got[k])
			}
		default:
			if v, ok := got[k]; ok {
				t.Errorf("%s=%q reached the agent", k, v)
			}
		}
	}
	if got["WARDEN_TEST_KEPT"] != "yes" || got["TMUX_TMPDIR"] != "/tmp/mine" || got["COLORTERM"] != "truecolor" || got["PATH"] == "" {
		t.Errorf("lost: WARDEN_TEST_KEPT=%q TMUX_TMPDIR=%q COLORTERM=%q PATH=%q", got["WARDEN_TEST_KEPT"], got["TMUX_TMPDIR"], got["COLORTERM"], got["PATH"])
	}
}
