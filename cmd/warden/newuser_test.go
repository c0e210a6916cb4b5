//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
)

// inDir returns warden(args) run in dir.
func inDir(dir string, args ...string) *exec.Cmd {
	cmd := warden(args...)
	cmd.Dir = dir
	return cmd
}

// warden init writes, for each CLI, a team file that validates with no
// warning about its permission settings, and never overwrites a file.
func TestInitWritesATeamThatValidates(t *testing.T) {
	dir := t.TempDir()
	for _, cli := range initNames() {
		file := filepath.Join(dir, cli+".toml")
		out, err := inDir(dir, "init", "--cli", cli, file).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "wrote "+file+": agents "+cli) {
			t.Fatalf("init --cli %s: %v\n%s", cli, err, out)
		}
		out, err = warden("validate", file).CombinedOutput()
		if exitCode(err) != 0 || !strings.Contains(string(out), ": ok: ") {
			t.Errorf("the %s team does not validate: exit %d\n%s", cli, exitCode(err), out)
		}
		if strings.Contains(string(out), "unattended") || strings.Contains(string(out), "stale_warning") {
			t.Errorf("the %s team has warnings beyond a CLI not installed here:\n%s", cli, out)
		}
		before, _ := os.ReadFile(file)
		// Its commented estimate is a valid key as it stands, once uncommented.
		withEstimate := filepath.Join(dir, cli+"-estimate.toml")
		os.WriteFile(withEstimate, []byte(strings.Replace(string(before), "\n# estimate = \"2h\"", "\nestimate = \"2h\"", 1)), 0o600)
		if out, err := warden("validate", withEstimate).CombinedOutput(); exitCode(err) != 0 || !strings.Contains(string(before), "\n# estimate = \"2h\"") {
			t.Errorf("the %s team with its estimate uncommented: exit %d\n%s", cli, exitCode(err), out)
		}
		out, err = inDir(dir, "init", "--cli", cli, file).CombinedOutput()
		after, _ := os.ReadFile(file)
		if exitCode(err) == 0 || !strings.Contains(string(out), "exists") || string(before) != string(after) {
			t.Errorf("init over an existing file: exit %d, %s", exitCode(err), out)
		}
	}
	out, err := inDir(dir, "init", "--cli", "aider").CombinedOutput()
	if exitCode(err) != 2 {
		t.Errorf("init --cli aider: exit %d, %s; want 2", exitCode(err), out)
	}
}

// Without --cli, init writes an agent for each CLI found on PATH, into
// ./team.toml, which then validates without any warning.
func TestInitFindsTheCLIsOnPath(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	for _, name := range []string{"claude", "gemini"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o700)
	}
	cmd := inDir(dir, "init")
	cmd.Env = append(withoutEnv(cmd.Env, "PATH"), "PATH="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "wrote team.toml: agents claude, gemini\n") {
		t.Fatalf("init: %v\n%s", err, out)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "team.toml"))
	if !strings.Contains(string(text), "# found: "+filepath.Join(bin, "claude")) || strings.Contains(string(text), `name = "codex"`) {
		t.Errorf("team.toml:\n%s", text)
	}
	cmd = inDir(dir, "validate", "team.toml")
	cmd.Env = append(withoutEnv(cmd.Env, "PATH"), "PATH="+bin)
	out, err = cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("validate: %v\n%s", err, out)
	}
}

func TestVersion(t *testing.T) {
	out, err := warden("--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "warden ") || !strings.Contains(string(out), runtime.Version()) {
		t.Fatalf("--version: %v, %q", err, out)
	}
}

// A warden built from a clone of this repository names the commit it was
// built from. (A clone, because Go reads no VCS information in a git
// worktree, whose .git is a file.)
func TestVersionNamesTheCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v (the tests run in a git checkout)", err)
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "src")
	if out, err := exec.Command("git", "clone", "-q", strings.TrimSpace(string(root)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "warden")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-buildvcs=true", "-o", bin, "./cmd/warden")
	build.Dir = clone
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "warden v") || !strings.Contains(string(out), " commit "+strings.TrimSpace(string(head))+" ") {
		t.Errorf("--version: %v, %q; want the commit %s", err, out, head)
	}
}

// Commands that take TEAM.toml or --state-dir find the team of the
// current directory when given neither: ./.warden, or the one team file.
func TestStateDirDefaultsToTheCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	out, err := inDir(dir, "checkpoint").CombinedOutput()
	if exitCode(err) != 2 || !strings.Contains(string(out), "no team here") {
		t.Errorf("empty dir: exit %d, %s; want 2 and no team here", exitCode(err), out)
	}
	os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"x\"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "night.toml"), []byte("name = \"n\"\nstate_dir = \"state\"\n[[agent]]\nname = \"a\"\ncommand = [\"true\"]\n"), 0o600)
	out, err = inDir(dir, "checkpoint").CombinedOutput()
	if err != nil || !strings.Contains(string(out), filepath.Join(dir, "state", "checkpoint-needed")) {
		t.Errorf("one team file beside another TOML file: %v, %s", err, out)
	}
	out, err = inDir(dir, "checkpoints").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no checkpoints yet") {
		t.Errorf("checkpoints: %v, %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "day.toml"), []byte("name = \"d\"\n[[agent]]\nname = \"a\"\ncommand = [\"true\"]\n"), 0o600)
	out, err = inDir(dir, "status").CombinedOutput()
	if exitCode(err) != 2 || !strings.Contains(string(out), "day.toml, night.toml") {
		t.Errorf("two team files: exit %d, %s; want 2 naming both", exitCode(err), out)
	}
	os.Mkdir(filepath.Join(dir, ".warden"), 0o700)
	out, err = inDir(dir, "checkpoint").CombinedOutput()
	if err != nil || !strings.Contains(string(out), filepath.Join(dir, ".warden", "checkpoint-needed")) {
		t.Errorf("./.warden: %v, %s", err, out)
	}
	out, err = inDir(dir, "replay", "a", "--list").CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), "no recording") {
		t.Errorf("replay in ./.warden without recordings: exit %d, %s; want 1 and no recording", exitCode(err), out)
	}
}

// warden wrap --log-format json: its log, in the state dir, is JSON lines.
func TestWrapLogFormatJSON(t *testing.T) {
	defer proctest.AssertNone(t)
	u := startWrap(t, "exit:0", "--log-format", "json")
	if code := u.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	log, err := os.ReadFile(filepath.Join(u.cmd.Args[3], "logs", "warden.log"))
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if err != nil || len(lines) < 2 {
		t.Fatalf("warden.log: %v\n%s", err, log)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["@message"] == nil {
			t.Errorf("log line %q is not JSON (%v)", l, err)
		}
	}
}
