//go:build !e2e

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// The scheduler examples hold a warden command line and a team file: the
// command line parses as warden run's, with the flag its scheduler needs
// (plain `run` under a Kubernetes Job, whose podFailurePolicy keeps a
// finished run from being retried; --resume under Nomad, which restarts on
// any non-zero exit, and under systemd), the team file validates, Claude
// Code's onboarding is written for every agent's dir before warden starts,
// and the scheduler's wait between SIGTERM and SIGKILL covers the team's
// checkpoint_timeout + shutdown_timeout with a margin — under Nomad's 30s
// max_kill_timeout unless the header says to raise it.
func TestSchedulerExamplesParse(t *testing.T) {
	t.Run("kubernetes", func(t *testing.T) {
		e := kubernetesExample(t)
		opts := runArgs(t, e.file, e.argv)
		if opts.resume || opts.logs.format != "json" || opts.httpAddr == "" || filepath.Base(opts.teamFile) != "team.toml" {
			t.Errorf("%s: want plain run, --log-format json, --http and …/team.toml; got %+v", e.file, opts)
		}
		cfg, tmp := e.loadTeam(t, "/var/lib/warden")
		e.checkClaudeHome(t, cfg, tmp, "/var/lib/warden")
		e.checkStopBudget(t, cfg)
		for _, want := range []string{"kind: Job", "restartPolicy: Never", "podFailurePolicy:", "action: FailJob",
			"values: [1]", "type: DisruptionTarget", "persistentVolumeClaim: {claimName: warden-team-state}"} {
			if !strings.Contains(e.text, want) {
				t.Errorf("%s lacks %q", e.file, want)
			}
		}
	})
	t.Run("nomad", func(t *testing.T) {
		e := nomadExample(t)
		opts := runArgs(t, e.file, e.argv)
		if !opts.resume || opts.logs.format != "json" || opts.httpAddr == "" || filepath.Base(opts.teamFile) != "team.toml" {
			t.Errorf("%s: want --resume, --log-format json, --http and …/team.toml; got %+v", e.file, opts)
		}
		if e.argv[0] != "/usr/bin/env" || e.argv[1] != "HOME=/srv/warden/home" {
			t.Errorf("%s: the task's HOME is not set on the volume: %q", e.file, e.argv)
		}
		cfg, tmp := e.loadTeam(t, "/srv/warden")
		e.checkClaudeHome(t, cfg, tmp, "/srv/warden")
		e.checkStopBudget(t, cfg)
		if !strings.Contains(e.text, `type = "batch"`) {
			t.Errorf("%s is not a batch job", e.file)
		}
		// The script the job carries is examples/kubernetes/claude-home.sh.
		script := e.embedded(t, `(?s)destination = "local/claude-home\.sh"\n\s+data\s+= <<-EOT\n(.*?)\n\s+EOT`, "          ")
		want, _ := os.ReadFile("../../examples/kubernetes/claude-home.sh")
		if strings.TrimRight(script, " \n") != strings.TrimRight(string(want), "\n") {
			t.Errorf("%s carries a claude-home.sh that is not examples/kubernetes/claude-home.sh", e.file)
		}
		if e.stopBudget > 30*time.Second && !regexp.MustCompile(`max_kill_timeout = "`+regexp.QuoteMeta(e.match(t, `(?m)^\s+kill_timeout = "(.*)"$`))+`"`).MatchString(e.text) {
			t.Errorf("%s: kill_timeout %s is above the client's default max_kill_timeout (30s) and the header does not say to raise it", e.file, e.stopBudget)
		}
	})
	t.Run("systemd", func(t *testing.T) {
		e := systemdExample(t)
		opts := runArgs(t, e.file, e.argv)
		if !opts.resume || opts.teamFile != "%f/team.toml" {
			t.Errorf("%s: want run %%f/team.toml --resume; got %+v", e.file, opts)
		}
		// The unit runs the user's team: its budget covers the defaults and
		// every example team.
		teams, _ := filepath.Glob("../../examples/*.toml")
		for _, p := range teams {
			cfg, err := config.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			e.checkStopBudget(t, cfg)
		}
		e.checkStopBudget(t, &config.Team{CheckpointTimeout: config.DefaultCheckpointTimeout, ShutdownTimeout: config.DefaultShutdownTimeout})
		for _, want := range []string{"\nRestart=on-failure\n", "\nSuccessExitStatus=130\n", "\nRestartPreventExitStatus=1\n", "\nKillMode=mixed\n", "\nWorkingDirectory=%f\n"} {
			if !strings.Contains(e.text, want) {
				t.Errorf("%s lacks %q", e.file, strings.TrimSpace(want))
			}
		}
	})
}
