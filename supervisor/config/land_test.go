//go:build !e2e

package config

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The land keys: read as written in worktree mode; land needs an agent in
// worktree mode; bad values are errors at the key.
func TestLandKeys(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	agent := "[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + repo + "\"\n"
	team, err := Parse("t.toml", []byte("name = \"t\"\nworkspace = \"worktree\"\nland = \"ff-base\"\n"+
		"land_verify = [\"go\", \"test\", \"./...\"]\nland_verify_each = true\nland_verify_timeout = \"20m\"\n"+agent))
	if err != nil {
		t.Fatal(err)
	}
	l := team.Landing
	if l.Land != LandFFBase || !slices.Equal(l.LandVerify, []string{"go", "test", "./..."}) || !l.LandVerifyEach ||
		l.LandVerifyTimeout != 20*time.Minute {
		t.Errorf("landing = %+v", l)
	}
	for src, want := range map[string]string{
		"name = \"t\"\nland = \"branch\"\n" + agent:                              `t.toml:2:1: land = "branch" needs workspace = "worktree"`,
		"name = \"t\"\nworkspace = \"worktree\"\nland = \"rebase\"\n" + agent:    `t.toml:3:1: unknown land "rebase"`,
		"name = \"t\"\nworkspace = \"worktree\"\nland_verify = []\n" + agent:     `t.toml:3:1: land_verify must not be empty`,
		"name = \"t\"\nworkspace = \"worktree\"\nland_verify_each = 1\n" + agent: `t.toml:3:1: land_verify_each must be true or false`,
	} {
		if _, err := Parse("t.toml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s\n: %v, want %q", src, err, want)
		}
	}
}

// land_by names the agent a stopped land is handed to, land_attempts how
// many land tasks a stop gets: read as written, defaults, errors at the
// key (an unknown agent, land = "none", a task id taken by land tasks).
func TestLandByKeys(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	agent := "[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"" + repo + "\"\n"
	team, err := Parse("t.toml", []byte("name = \"t\"\nworkspace = \"worktree\"\nland = \"branch\"\nland_by = \"a\"\nland_attempts = 3\n"+agent))
	if err != nil {
		t.Fatal(err)
	}
	if l := team.Landing; l.LandBy != "a" || l.LandAttempts != 3 {
		t.Errorf("landing = %+v", l)
	}
	if team, err = Parse("t.toml", []byte("name = \"t\"\nworkspace = \"worktree\"\nland = \"branch\"\n"+agent)); err != nil ||
		team.LandBy != "" || team.LandAttempts != DefaultLandAttempts {
		t.Errorf("defaults: %v %+v", err, team.Landing)
	}
	for src, want := range map[string]string{
		"name = \"t\"\nworkspace = \"worktree\"\nland = \"branch\"\nland_by = \"b\"\n" + agent:                                                                          `t.toml:4:1: land_by names unknown agent "b"`,
		"name = \"t\"\nworkspace = \"worktree\"\nland_by = \"a\"\n" + agent:                                                                                             `t.toml:3:1: land_by needs land = "branch" or "ff-base"`,
		"name = \"t\"\nworkspace = \"worktree\"\nland = \"branch\"\nland_attempts = 0\n" + agent:                                                                        `t.toml:4:1: land_attempts`,
		"name = \"t\"\nworkspace = \"worktree\"\nland = \"branch\"\nland_by = \"a\"\n" + agent + "[[task]]\nid = \"land.T1\"\nprompt = \"p\"\n":                         `begins with "land."`,
		"name = \"t\"\nworkspace = \"worktree\"\nland = \"branch\"\nland_by = \"b\"\n" + agent + "[[agent]]\nname = \"b\"\ncommand = [\"x\"]\nworkspace = \"shared\"\n": `land_by names agent "b", which does not work in worktree mode`,
	} {
		if _, err := Parse("t.toml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s\n: %v, want %q", src, err, want)
		}
	}
}
