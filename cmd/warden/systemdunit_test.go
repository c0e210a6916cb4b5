//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// verifyUnit runs `systemd-analyze --user verify` on the unit text,
// installed as dir/warden@.service, for the instance of teamDir (escaped
// as `systemd-escape --path` does), and returns what it said about it.
func verifyUnit(t *testing.T, analyze, unit, teamDir string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "warden@.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	inst, err := exec.Command("systemd-escape", "--path", teamDir).Output()
	if err != nil {
		t.Fatalf("systemd-escape --path %s: %v", teamDir, err)
	}
	runtime := t.TempDir() // a user manager's runtime dir, which verify --user needs
	cmd := exec.Command(analyze, "--user", "verify", filepath.Join(dir, "warden@"+strings.TrimSpace(string(inst))+".service"))
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtime)
	out, err := cmd.CombinedOutput()
	var about []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "warden@") {
			about = append(about, l)
		}
	}
	return strings.Join(about, "\n"), err
}

// examples/systemd/warden@.service passes `systemd-analyze --user verify`
// as an instance for a team's directory, with its ExecStart pointing at a
// warden binary (this test binary) — no unknown key, no bad value, an
// executable command — and verify does catch a bad value in it.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (.ci/run installs it: in CI this never skips)")
	}
	b, err := os.ReadFile("../../examples/systemd/warden@.service")
	if err != nil {
		t.Fatal(err)
	}
	const installed = "%h/go/bin/warden run "
	if !strings.Contains(string(b), "\nExecStart="+installed) {
		t.Fatalf("the unit's ExecStart is not %s…", installed)
	}
	unit := strings.Replace(string(b), installed, os.Args[0]+" run ", 1)
	teamDir := t.TempDir()
	if said, err := verifyUnit(t, analyze, unit, teamDir); err != nil || said != "" {
		t.Errorf("systemd-analyze --user verify: %v\n%s", err, said)
	}
	bad := strings.Replace(unit, "\nKillMode=mixed\n", "\nKillMode=mixd\n", 1)
	if said, _ := verifyUnit(t, analyze, bad, teamDir); !strings.Contains(said, "mixd") {
		t.Errorf("verify let KillMode=mixd pass: %q", said)
	}
}
