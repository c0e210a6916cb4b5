package agent

import (
	"os"
	"path/filepath"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/session"
)

// channel is how an agent's session reads the app-server its profile
// names (profile.AppServer: Codex's) beside the screen, or nil for the
// screen alone: a CLI with none, an agent with channel = "screen", a
// command that does not run the CLI's TUI itself (a wrapper, a
// subcommand), or a CLI that cannot attach (Codex without --remote). A
// session taken back from the holder (takenBack) whose app-server's socket
// is there runs the app-server the dead warden's launcher started: the CLI
// is not asked again whether it can attach (two --help runs of a Node.js
// CLI, about a second of the take-back on a loaded machine); joinChannel
// still checks that the process listening is the agent's own.
func (a *Agent) channel(argv []string, takenBack bool) *session.Channel {
	app := profile.AppServerOf(a.cfg.Profile)
	if app == nil || a.cfg.Channel == config.ChannelScreen {
		return nil
	}
	name := a.cfg.Name
	fi, err := os.Lstat(a.d.Dir.AppSocket(name))
	held := takenBack && err == nil && fi.Mode()&os.ModeSocket != 0
	switch {
	case !app.Runs(argv):
		a.log.Info("the command does not run the CLI's TUI itself: reading its screen only", "channel", "screen")
		return nil
	case !held && !app.CanAttach(argv):
		a.log.Warn("this CLI cannot attach its TUI to an app-server: reading its screen only", "channel", "screen")
		return nil
	}
	if err := a.d.Dir.PrepareAppSocket(name); err != nil {
		a.log.Warn("no place for the app-server's socket: reading the screen only", "error", err)
		return nil
	}
	sock := a.d.Dir.AppSocket(name)
	logPath := filepath.Join(a.d.Dir.AgentSettings(name), "app-server.log")
	return &session.Channel{Socket: sock, Attach: app.Attach,
		Launch: []string{a.d.WardenBin, app.Launcher, "--socket", sock, "--log", logPath, "--"}}
}
