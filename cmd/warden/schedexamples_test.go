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
