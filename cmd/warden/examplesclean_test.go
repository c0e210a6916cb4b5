//go:build !e2e

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
)

// Every team file of examples/ — the *.toml beside it and the ones the
// Kubernetes and Nomad jobs carry — validates clean: no error and no
// warning (a pod's log started with one: stale_warning not above
// checkpoint_interval + checkpoint_timeout), on a machine where its
// commands are installed (a PATH holding them: the image the job runs).
func TestEveryExampleTeamFileValidatesClean(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.toml")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(filepath.Dir(f))); err != nil {
			t.Fatal(err)
		}
		checkClean(t, f, filepath.Join(dir, filepath.Base(f)), string(b))
	}
	for _, e := range []schedExample{kubernetesExample(t), nomadExample(t)} {
		volume := map[string]string{"../../examples/kubernetes/warden.yaml": "/var/lib/warden"}[e.file]
		if volume == "" {
			volume = "/srv/warden"
		}
		_, tmp := e.loadTeam(t, volume)
		checkClean(t, e.file, filepath.Join(tmp, "team.toml"), e.team)
	}
}

// checkClean loads the team file at path (name is what the test calls it)
// with its commands installed, and wants neither error nor warning.
func checkClean(t *testing.T, name, path, text string) {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	installed(t, cfg)
	_, warnings, err := config.LoadWithWarnings(path)
	if err != nil || len(warnings) > 0 {
		t.Errorf("%s: not clean under warden validate: %v %v\n%s", name, err, warnings, text)
	}
}

// installed puts every command the team names by its bare name on a PATH
// of the test's own: the machine the example is for has them.
func installed(t *testing.T, cfg *config.Team) {
	t.Helper()
	bin := t.TempDir()
	var argvs [][]string
	for _, a := range cfg.Agents {
		argvs = append(argvs, a.Command)
	}
	for _, n := range cfg.Notify {
		argvs = append(argvs, n.Command)
	}
	for _, argv := range argvs {
		if len(argv) == 0 || strings.Contains(argv[0], "/") {
			continue
		}
		if err := os.WriteFile(filepath.Join(bin, argv[0]), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
}

// The Kubernetes and Nomad examples run their task unattended: their agent
// runs Claude Code with the preset `warden init` writes for a Node.js
// project (the image's), so that running the test suite draws no dialog,
// and a dialog that still comes up is denied within a minute, not after the
// 15 minutes they waited before (their `acceptEdits` asked before every
// command, and on_dialog = "deny" denied each after dialog_timeout 15m).
func TestSchedulerExamplesRunTheirTaskUnattended(t *testing.T) {
	node := t.TempDir()
	if err := os.WriteFile(filepath.Join(node, "package.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(profile.CLIs(), func(c profile.CLI) bool { return c.Name == "claude" })
	if i < 0 {
		t.Fatal("no claude profile")
	}
	preset, ok := initPreset(profile.CLIs()[i], findProject(node))
	if !ok {
		t.Fatal("claude has no preset")
	}
	for _, c := range []struct {
		e      schedExample
		volume string
	}{{kubernetesExample(t), "/var/lib/warden"}, {nomadExample(t), "/srv/warden"}} {
		cfg, _ := c.e.loadTeam(t, c.volume)
		for _, a := range cfg.Agents {
			if want := preset.Command("claude"); !slices.Equal(a.Command, want) {
				t.Errorf("%s: agent %s runs %q, not init's preset %q", c.e.file, a.Name, a.Command, want)
			}
			if p := cfg.Dialog(&a); p.On == config.DialogDeny && p.Timeout > time.Minute {
				t.Errorf("%s: agent %s's dialog waits %s for its deny", c.e.file, a.Name, p.Timeout)
			}
		}
	}
}
