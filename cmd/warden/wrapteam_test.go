//go:build !e2e

package main

import (
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// warden wrap's team gets every default a team file gets (it once missed
// usage_limit_wait, so a usage limit without a reset time waited 0 s).
func TestWrapTeamHasTheTeamFileDefaults(t *testing.T) {
	team, err := wrapTeam([]string{"/usr/bin/claude"}, "", "wrap", "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := config.Defaults()
	if team.UsageLimitWait != d.UsageLimitWait || team.CheckpointInterval != d.CheckpointInterval ||
		team.OnDialog != d.OnDialog || team.DialogTimeout != d.DialogTimeout || team.LogMaxSize != d.LogMaxSize {
		t.Errorf("wrap team %+v lacks defaults of %+v", team, d)
	}
	a := team.Agents[0]
	if a.Profile != "claude" || a.Restart != config.RestartNever || a.MaxRestarts != config.DefaultMaxRestarts {
		t.Errorf("agent %+v", a)
	}
}
