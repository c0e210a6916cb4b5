package profile

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// codexPrograms are the names the Codex CLI runs under.
var codexPrograms = []string{"codex", "codex.js"}

// codexAppServer is how a Codex agent's TUI is attached to an app-server
// warden joins (supervisor/channel/codexapp; docs/design-channels.md).
var codexAppServer = AppServer{
	Launcher:  "codex-remote",
	Runs:      CodexRunsTUI,
	CanAttach: CodexCanAttach,
	Attach:    CodexRemoteArgv,
}

// codexAt is the index of the Codex program in argv (after a wrapper such as
// node), -1 when argv does not name it.
func codexAt(argv []string) int {
	return slices.IndexFunc(argv, func(a string) bool { return slices.Contains(codexPrograms, filepath.Base(a)) })
}

// CodexRunsTUI reports whether argv runs the Codex CLI itself (not a shell
// wrapper around it), so that its TUI can be attached to an app-server.
func CodexRunsTUI(argv []string) bool {
	i := codexAt(argv)
	if i < 0 || i > 1 || i == 1 && !slices.Contains([]string{"node", "bun"}, filepath.Base(argv[0])) {
		return false // a wrapper (sh -c codex …) runs it, or does not
	}
	rest := argv[i+1:]
	for k := 0; k < len(rest); k++ {
		switch a := rest[k]; {
		case a == "--", a == "--remote", strings.HasPrefix(a, "--remote="):
			return false // the user's own server
		case slices.Contains(tuiValueFlags, a):
			k++ // its value
		case !strings.HasPrefix(a, "-"):
			return false // a subcommand (exec, resume, …) or a prompt: not the plain TUI
		}
	}
	return true
}

// tuiValueFlags take a value as the next argument.
var tuiValueFlags = []string{"-c", "--config", "--enable", "--disable", "-m", "--model", "-p", "--profile",
	"-s", "--sandbox", "-a", "--ask-for-approval", "-C", "--cd", "--add-dir", "-i", "--image", "--local-provider",
	"--remote", "--remote-auth-token-env"}

// CodexServerArgv is the app-server beside the TUI of tui (a Codex command
// line): the same program, listening on the unix socket sock, with the
// TUI's configuration overrides (-c, --config, --enable, --disable,
// --strict-config). An attached TUI sends its thread's model, approval
// policy and sandbox to the server, but not its -c overrides: warden's
// notify program and developer instructions, and the user's own, hold
// only where the turns run (measured with Codex 0.169.0).
func CodexServerArgv(tui []string, sock string) []string {
	i := codexAt(tui)
	out := append(slices.Clone(tui[:i+1]), "app-server", "--listen", "unix://"+sock)
	rest := tui[i+1:]
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		switch {
		case a == "--":
			return out
		case a == "--strict-config":
			out = append(out, a)
		case (a == "-c" || a == "--config" || a == "--enable" || a == "--disable") && k+1 < len(rest):
			out = append(out, a, rest[k+1])
			k++
		case strings.HasPrefix(a, "--config=") || strings.HasPrefix(a, "--enable=") || strings.HasPrefix(a, "--disable="):
			out = append(out, a)
		case strings.HasPrefix(a, "-c") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			out = append(out, "-c", a[2:])
		}
	}
	return out
}

// CodexRemoteArgv is the TUI of tui attached to the app-server on sock: --remote
// in place of --no-daemon (an attached TUI starts no server of its own).
func CodexRemoteArgv(tui []string, sock string) []string {
	i := codexAt(tui)
	out := slices.Clone(tui[:i+1])
	out = append(out, "--remote", "unix://"+sock)
	for _, a := range tui[i+1:] {
		if a != "--no-daemon" {
			out = append(out, a)
		}
	}
	return out
}

// CodexLocalArgv is the TUI of a remote command line (RemoteArgv) on its own
// again: the fallback when its app-server did not start.
func CodexLocalArgv(remote []string) []string {
	i := codexAt(remote)
	out := slices.Clone(remote[:i+1])
	rest := remote[i+1:]
	for k := 0; k < len(rest); k++ {
		if rest[k] == "--remote" && k+1 < len(rest) {
			k++
			continue
		}
		out = append(out, rest[k])
	}
	if !slices.Contains(out, "--no-daemon") {
		out = slices.Insert(out, i+1, "--no-daemon")
	}
	return out
}

var codexCanAttach sync.Map // program path → bool

// helpTimeout bounds each --help CodexCanAttach runs.
const codexHelpTimeout = 10 * time.Second

// CodexCanAttach reports whether the Codex of argv can attach its TUI to an
// app-server (its --help names --remote and app-server has --listen). It
// asks each program once.
func CodexCanAttach(argv []string) bool {
	i := codexAt(argv)
	if i < 0 {
		return false
	}
	key := strings.Join(argv[:i+1], "\x00")
	if v, ok := codexCanAttach.Load(key); ok {
		return v.(bool)
	}
	help := func(args ...string) string {
		// A program that does not answer --help at once is not a Codex
		// that can: the agent starts on its screen alone.
		ctx, cancel := context.WithTimeout(context.Background(), codexHelpTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], append(slices.Clone(argv[1:i+1]), args...)...)
		cmd.WaitDelay = time.Second
		out, _ := cmd.Output()
		return string(out)
	}
	ok := strings.Contains(help("--help"), "--remote <ADDR>") && strings.Contains(help("app-server", "--help"), "unix://PATH")
	codexCanAttach.Store(key, ok)
	return ok
}
