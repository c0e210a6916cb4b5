package runner

import (
	"os"
	"strings"
)

// An agent's terminal is warden's pty, not the terminal warden was started
// in: the variables by which that outer terminal, or a multiplexer in it,
// names itself are not passed on. A CLI that reads them speaks to a
// terminal it is not in: Claude Code under warden, started inside tmux,
// told the user to fix ~/.tmux.conf. TERM and COLORTERM are warden's own
// (buildEnv); an agent's env in the team file may still set any of these.

// outerTerminal are the names of the outer terminal's variables, each an
// exact name.
var outerTerminal = map[string]bool{
	// multiplexers: tmux, GNU screen, Zellij
	"TMUX": true, "TMUX_PANE": true, "STY": true, "WINDOW": true,
	"ZELLIJ": true, "ZELLIJ_SESSION_NAME": true, "ZELLIJ_PANE_ID": true,
	// the terminal's name and version (tmux sets these too)
	"TERM_PROGRAM": true, "TERM_PROGRAM_VERSION": true, "TERM_SESSION_ID": true,
	"LC_TERMINAL": true, "LC_TERMINAL_VERSION": true, "TERMINAL_EMULATOR": true,
	"VTE_VERSION": true, "WT_SESSION": true, "WT_PROFILE_ID": true, "TERMINATOR_UUID": true,
	"INSIDE_EMACS": true,
	// the outer terminal's size: the agent's pty has its own
	"COLUMNS": true, "LINES": true,
}

// outerTerminalPrefixes are the prefixes of a terminal's own families of
// variables (its window, its socket, its resources).
var outerTerminalPrefixes = []string{"ITERM_", "KITTY_", "WEZTERM_", "ALACRITTY_", "GHOSTTY_", "KONSOLE_"}

// isOuterTerminal reports whether the variable named name belongs to the
// terminal warden was started in.
func isOuterTerminal(name string) bool {
	if outerTerminal[name] {
		return true
	}
	for _, p := range outerTerminalPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// inheritedEnv is warden's environment without the outer terminal's
// variables. Only names are looked at; no value is read or logged.
func inheritedEnv() []string {
	base := os.Environ()
	env := base[:0:0]
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !isOuterTerminal(name) {
			env = append(env, kv)
		}
	}
	return env
}
