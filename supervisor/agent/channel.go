package agent

import (
	"path/filepath"

	"github.com/wardenhq/warden/supervisor/channel/codexapp"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/session"
)

// channel is how a Codex agent's session reads its app-server beside the
// screen (session.Channel), or nil for the screen alone: an agent with
// channel = "screen", a command that does not run the Codex TUI itself (a
// wrapper, a subcommand), or a Codex without --remote.
func (a *Agent) channel(argv []string) *session.Channel {
	if a.cfg.Profile != "codex" || a.cfg.Channel == config.ChannelScreen {
		return nil
	}
	name := a.cfg.Name
	switch {
	case !codexapp.Names(argv):
		a.log.Info("the command does not run the Codex TUI itself: reading its screen only", "channel", "screen")
		return nil
	case !codexapp.Supported(argv):
		a.log.Warn("this Codex cannot attach its TUI to an app-server (no --remote): reading its screen only", "channel", "screen")
		return nil
	}
	if err := a.d.Dir.PrepareAppSocket(name); err != nil {
		a.log.Warn("no place for the app-server's socket: reading the screen only", "error", err)
		return nil
	}
	sock := a.d.Dir.AppSocket(name)
	logPath := filepath.Join(a.d.Dir.AgentSettings(name), "app-server.log")
	return &session.Channel{Socket: sock, Launch: []string{a.d.WardenBin, "codex-remote", "--socket", sock, "--log", logPath, "--"}}
}
