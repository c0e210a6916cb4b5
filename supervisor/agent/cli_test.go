//go:build !e2e

package agent

import (
	"testing"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/memory"
)

// Everything warden knows about one CLI that the agent and the memory
// admission need — the account its agents share, the memory a session
// takes before it is learned — comes through the CLI's registration, one
// production file: a CLI registered here, in this file alone, gets both.
// (The account home per CLI was a switch on the profile's name in the
// agent, the footprints a table in the admission.)
func TestANewCLIIsOneFile(t *testing.T) {
	profile.Register(profile.CLI{Name: "newcli", Programs: []string{"newcli"},
		AccountHome: func(env func(string) string) string { return env("NEWCLI_HOME") },
		Footprint:   3 << 30})
	env := []string{"HOME=/home/u", "NEWCLI_HOME=/home/u/.newcli"}
	if got := AccountOf(config.Agent{Name: "w", Profile: "newcli"}, env); got != "newcli:/home/u/.newcli" {
		t.Errorf("account %q", got)
	}
	if got := memory.NewFootprints().Defaults["newcli"]; got != 3<<30 {
		t.Errorf("footprint %d", got)
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
