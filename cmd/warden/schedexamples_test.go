package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// The scheduler examples hold a warden command line and a team file: the
// command line parses as warden run's (the team file its one argument) and
// the team file validates, with the volume's paths moved into a temp dir.
func TestSchedulerExamplesParse(t *testing.T) {
	for _, c := range []struct {
		file, volume string
		args         *regexp.Regexp // the line holding run's arguments, a JSON array
		team         *regexp.Regexp // the embedded team file
		indent       string
	}{
		{
			file:   "../../examples/kubernetes/warden.yaml",
			volume: "/var/lib/warden",
			args:   regexp.MustCompile(`(?m)^\s+args: (\[.*\])$`),
			team:   regexp.MustCompile(`(?s)team\.toml: \|\n(.*?)\n---`),
			indent: "    ",
		},
		{
			file:   "../../examples/nomad/warden.nomad.hcl",
			volume: "/srv/warden",
			args:   regexp.MustCompile(`(?m)^\s+args\s+= (\[.*\])$`),
			team:   regexp.MustCompile(`(?s)destination = "local/team\.toml"\n\s+data\s+= <<-EOT\n(.*?)\n\s+EOT`),
			indent: "          ",
		},
	} {
		t.Run(filepath.Base(filepath.Dir(c.file)), func(t *testing.T) {
			src, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			m := c.args.FindSubmatch(src)
			if m == nil {
				t.Fatalf("no run command line in %s", c.file)
			}
			var args []string
			if err := json.Unmarshal(m[1], &args); err != nil {
				t.Fatalf("%s: the command line %s: %v", c.file, m[1], err)
			}
			if len(args) == 0 || args[0] != "run" {
				t.Fatalf("%s: %q is not a warden run command line", c.file, args)
			}
			opts, err := parseRunArgs(args[1:], io.Discard)
			if err != nil {
				t.Fatalf("%s: warden %s: %v", c.file, strings.Join(args, " "), err)
			}
			if !opts.resume || opts.logs.format != "json" || opts.httpAddr == "" {
				t.Errorf("%s: want --resume, --log-format json and --http; got %+v", c.file, opts)
			}
			if want := "team.toml"; filepath.Base(opts.teamFile) != want {
				t.Errorf("%s: the team file argument is %q, want …/%s", c.file, opts.teamFile, want)
			}

			tm := c.team.FindSubmatch(src)
			if tm == nil {
				t.Fatalf("no team file in %s", c.file)
			}
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "work"), 0o700)
			var lines []string
			for _, l := range strings.Split(string(tm[1]), "\n") {
				lines = append(lines, strings.TrimPrefix(l, c.indent))
			}
			team := strings.ReplaceAll(strings.Join(lines, "\n"), c.volume, dir)
			path := filepath.Join(dir, "team.toml")
			if err := os.WriteFile(path, []byte(team), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := config.Load(path); err != nil {
				t.Errorf("%s: its team file does not validate: %v\n%s", c.file, err, team)
			}
		})
	}
}
