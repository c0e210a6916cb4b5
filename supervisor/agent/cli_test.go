//go:build !e2e

package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/state"
)

// Everything warden knows about one CLI that the agent and the memory
// admission need — the account its agents share, the memory a session
// takes before it is learned, the app-server its TUI attaches to — comes
// through the CLI's registration, one production file: a CLI registered
// here, in this file alone, gets all three (its token files: the
// session's TestANewCLIsTokenFilesAreReadThroughItsProfile).
// (The account home per CLI was a switch on the profile's name in the
// agent, the footprints a table in the admission.)
func TestANewCLIIsOneFile(t *testing.T) {
	profile.Register(profile.CLI{Name: "newcli", Programs: []string{"newcli"},
		AccountHome: func(env func(string) string) string { return env("NEWCLI_HOME") },
		Footprint:   3 << 30,
		AppServer: &profile.AppServer{Launcher: "newcli-remote",
			Runs:      func(argv []string) bool { return len(argv) == 1 },
			CanAttach: func([]string) bool { return true },
			Attach:    func(tui []string, sock string) []string { return append(tui, "--attach", sock) }}})
	env := []string{"HOME=/home/u", "NEWCLI_HOME=/home/u/.newcli"}
	if got := AccountOf(config.Agent{Name: "w", Profile: "newcli"}, env); got != "newcli:/home/u/.newcli" {
		t.Errorf("account %q", got)
	}
	if got := memory.NewFootprints().Defaults["newcli"]; got != 3<<30 {
		t.Errorf("footprint %d", got)
	}
	// Its app-server: an agent whose command runs its TUI is attached to
	// it by its launcher; a wrapper, or channel = "screen", reads its
	// screen alone.
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := New(config.Agent{Name: "w", Profile: "newcli"}, &Deps{Log: hclog.NewNullLogger(), Dir: dir, WardenBin: "/bin/warden"})
	if ch := a.channel([]string{"newcli"}, false); ch == nil || ch.Launch[1] != "newcli-remote" ||
		strings.Join(ch.Attach([]string{"newcli"}, ch.Socket), " ") != "newcli --attach "+ch.Socket {
		t.Errorf("newcli's channel: %+v", ch)
	}
	if ch := a.channel([]string{"sh", "-c", "newcli"}, false); ch != nil {
		t.Errorf("a wrapper of newcli attached: %+v", ch)
	}
	// The CLIs warden ships keep their accounts and footprints.
	for _, c := range []struct {
		agent config.Agent
		want  string
	}{
		{config.Agent{Profile: "claude"}, "claude:/home/u/.claude"},
		{config.Agent{Profile: "claude", Env: map[string]string{"CLAUDE_CONFIG_DIR": "/c"}}, "claude:/c"},
		{config.Agent{Profile: "codex"}, "codex:/home/u/.codex"},
		{config.Agent{Profile: "gemini"}, "gemini:/home/u"},
		{config.Agent{Profile: "plain"}, ""},
		{config.Agent{Profile: "codex", Account: "team-a"}, "team-a"},
	} {
		if got := AccountOf(c.agent, env); got != c.want {
			t.Errorf("%s (env %v, account %q): account %q, want %q", c.agent.Profile, c.agent.Env, c.agent.Account, got, c.want)
		}
	}
	f := memory.NewFootprints().Defaults
	if f["claude"] != 2*config.GiB || f["codex"] != config.GiB || f["gemini"] != config.GiB || f[profile.PlainName] != 512*config.MiB {
		t.Errorf("footprints %v", f)
	}
}
