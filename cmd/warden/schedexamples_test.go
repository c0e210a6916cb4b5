package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// A scheduler example as the tests read it: the argv it starts (with the
// scheduler's own substitutions left in), its embedded team file, and how
// long the scheduler waits between SIGTERM and SIGKILL.
type schedExample struct {
	file, text string
	argv       []string
	team       string // "" for the systemd unit, which runs the user's team
	stopBudget time.Duration
}

func readExample(t *testing.T, file string) schedExample {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return schedExample{file: file, text: string(b)}
}

// match returns the first group of re in the example, or fails.
func (e schedExample) match(t *testing.T, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(e.text)
	if m == nil {
		t.Fatalf("%s: nothing matches %s", e.file, re)
	}
	return m[1]
}

func (e schedExample) jsonList(t *testing.T, re string) []string {
	t.Helper()
	var l []string
	if err := json.Unmarshal([]byte(e.match(t, re)), &l); err != nil {
		t.Fatalf("%s: %s is not a list of strings: %v", e.file, re, err)
	}
	return l
}

// embeddedTeam returns the text between re's match, de-indented by indent.
func (e schedExample) embedded(t *testing.T, re, indent string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(e.match(t, re), "\n") {
		lines = append(lines, strings.TrimPrefix(l, indent))
	}
	return strings.Join(lines, "\n")
}

func kubernetesExample(t *testing.T) schedExample {
	e := readExample(t, "../../examples/kubernetes/warden.yaml")
	e.argv = append(e.jsonList(t, `(?m)^\s+command: (\["claude-home".*\])$`), e.jsonList(t, `(?m)^\s+args: (\["warden".*\])$`)...)
	e.team = e.embedded(t, `(?s)team\.toml: \|\n(.*?)\n---`, "    ")
	grace, err := strconv.Atoi(e.match(t, `(?m)^\s+terminationGracePeriodSeconds: (\d+)$`))
	if err != nil {
		t.Fatal(err)
	}
	e.stopBudget = time.Duration(grace) * time.Second
	return e
}

func nomadExample(t *testing.T) schedExample {
	e := readExample(t, "../../examples/nomad/warden.nomad.hcl")
	e.argv = append([]string{e.match(t, `(?m)^\s+command = "(.*)"$`)}, e.jsonList(t, `(?m)^\s+args\s+= (\[.*\])$`)...)
	e.team = e.embedded(t, `(?s)destination = "local/team\.toml"\n\s+data\s+= <<-EOT\n(.*?)\n\s+EOT`, "          ")
	d, err := time.ParseDuration(e.match(t, `(?m)^\s+kill_timeout = "(.*)"$`))
	if err != nil {
		t.Fatal(err)
	}
	e.stopBudget = d
	return e
}

func systemdExample(t *testing.T) schedExample {
	e := readExample(t, "../../examples/systemd/warden@.service")
	e.argv = strings.Fields(e.match(t, `(?m)^ExecStart=(.*)$`))
	d, err := time.ParseDuration(e.match(t, `(?m)^TimeoutStopSec=(.*)$`))
	if err != nil {
		t.Fatal(err)
	}
	e.stopBudget = d
	return e
}

// loadTeam writes the example's team file with the volume's paths moved
// into a temp dir (its work dir made) and loads it; tmp is that dir.
func (e schedExample) loadTeam(t *testing.T, volume string) (cfg *config.Team, tmp string) {
	t.Helper()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "work"), 0o700)
	p := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(e.team, volume, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatalf("%s: its team file does not validate: %v\n%s", e.file, err, e.team)
	}
	return cfg, dir
}

// runArgs parses the warden run command line that follows `warden` in argv.
func runArgs(t *testing.T, file string, argv []string) runOptions {
	t.Helper()
	i := slices.IndexFunc(argv, func(a string) bool { return filepath.Base(a) == "warden" })
	if i < 0 || i+1 >= len(argv) || argv[i+1] != "run" {
		t.Fatalf("%s: %q holds no warden run command line", file, argv)
	}
	opts, err := parseRunArgs(argv[i+2:], io.Discard)
	if err != nil {
		t.Fatalf("%s: warden %s: %v", file, strings.Join(argv[i+1:], " "), err)
	}
	return opts
}

// stopNeeds is what a stop of the team takes at most: the last checkpoints,
// then the agents' exit.
func stopNeeds(cfg *config.Team) time.Duration { return cfg.CheckpointTimeout + cfg.ShutdownTimeout }

// minMargin is what a stop budget keeps beyond stopNeeds: the handoff is
// written, the processes are reaped.
const minMargin = 5 * time.Second

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

func (e schedExample) checkStopBudget(t *testing.T, cfg *config.Team) {
	t.Helper()
	if need := stopNeeds(cfg); e.stopBudget < need+minMargin {
		t.Errorf("%s waits %s before SIGKILL; the team's checkpoint_timeout + shutdown_timeout is %s, and the handoff needs a margin of %s",
			e.file, e.stopBudget, need, minMargin)
	}
}

// checkClaudeHome checks that the command line runs claude-home on every
// Claude agent's dir (its path on the volume; tmp stands for the volume in
// cfg) before `--` and warden.
func (e schedExample) checkClaudeHome(t *testing.T, cfg *config.Team, tmp, volume string) {
	t.Helper()
	i := slices.IndexFunc(e.argv, func(a string) bool {
		return strings.HasSuffix(a, "claude-home") || strings.HasSuffix(a, "claude-home.sh")
	})
	end := slices.Index(e.argv, "--")
	if i < 0 || end < i || filepath.Base(e.argv[end+1]) != "warden" {
		t.Fatalf("%s: %q does not run claude-home DIR... -- warden", e.file, e.argv)
	}
	dirs := e.argv[i+1 : end]
	for _, a := range cfg.Agents {
		dir := volume + strings.TrimPrefix(a.Dir, tmp)
		if a.Profile == "claude" && !slices.Contains(dirs, dir) {
			t.Errorf("%s: claude-home does not trust agent %s's dir %s (it trusts %q)", e.file, a.Name, dir, dirs)
		}
	}
}
