package main

import (
	"io"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/channel/codexapp"
)

// cmdCodexRemote is `warden codex-remote --socket S --log F -- CODEX…`,
// which warden runs under a Codex agent's pty in place of the CLI: it
// starts Codex's app-server on S and the TUI attached to it, both in the
// agent's process group, and exits with the TUI's code
// (docs/agent-clis.md, "Codex's app-server").
func cmdCodexRemote(args []string, stderr io.Writer) error {
	cmd := newCommand("codex-remote", "usage: warden codex-remote --socket PATH --log FILE -- CODEX [ARGS…]", stderr)
	sock := cmd.String("socket", "", "the app-server's unix socket")
	logPath := cmd.String("log", "", "the file the app-server's output goes to")
	if err := cmd.Parse(args); err != nil {
		return usageError("codex-remote: %v", err)
	}
	tui := cmd.Args()
	if *sock == "" || *logPath == "" || !profile.CodexRunsTUI(profile.CodexLocalArgv(tui)) {
		return cmd.badUsage()
	}
	if code := codexapp.Launch(*sock, *logPath, tui, stderr); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
