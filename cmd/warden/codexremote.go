package main

import (
	"flag"
	"io"

	"github.com/wardenhq/warden/supervisor/channel/codexapp"
)

// cmdCodexRemote is `warden codex-remote --socket S --log F -- CODEX…`,
// which warden runs under a Codex agent's pty in place of the CLI: it
// starts Codex's app-server on S and the TUI attached to it, both in the
// agent's process group, and exits with the TUI's code
// (docs/agent-clis.md, "Codex's app-server").
func cmdCodexRemote(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("codex-remote", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sock := fs.String("socket", "", "the app-server's unix socket")
	logPath := fs.String("log", "", "the file the app-server's output goes to")
	if err := fs.Parse(args); err != nil {
		return usageError("codex-remote: %v", err)
	}
	tui := fs.Args()
	if *sock == "" || *logPath == "" || !codexapp.Names(codexapp.LocalArgv(tui)) {
		return usageError("usage: warden codex-remote --socket PATH --log FILE -- CODEX [ARGS…]")
	}
	if code := codexapp.Launch(*sock, *logPath, tui, stderr); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
