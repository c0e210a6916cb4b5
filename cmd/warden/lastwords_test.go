//go:build e2e

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// An agent CLI that refuses its configuration and exits at once: the lines
// that report it carry what it said, so the reason is on the terminal.
func TestAgentThatExitsAtOnceSaysWhy(t *testing.T) {
	defer proctest.AssertNone(t)
	argv := fakeagent.Command("refuse")
	owner := strings.TrimPrefix(fakeagent.Env("x")[1], "WARDEN_TEST_OWNER=")
	team := filepath.Join(t.TempDir(), "team.toml")
	body := fmt.Sprintf(`name = "broken"
[[agent]]
name = "cli"
command = [%q, %q]
env = { WARDEN_FAKE_AGENT = "refuse:1:config broken", WARDEN_TEST_OWNER = %q }
max_restarts = 1
[[task]]
id = "T1"
prompt = "do it"
`, argv[0], argv[1], owner)
	if err := os.WriteFile(team, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := warden("run", team)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exitCode(err) != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", exitCode(err), stdout.String(), stderr.String())
	}
	var warning, failed string
	for _, l := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "WARNING: cli ended (exit code 1)"):
			warning = l
		case strings.HasPrefix(l, "TASK FAILED: T1"):
			failed = l
		}
	}
	if !strings.Contains(warning, "Error: config broken") || !strings.Contains(warning, "restart 1 of 1") {
		t.Errorf("the quick exit's WARNING line %q does not say what the agent said and what follows:\n%s", warning, stdout.String())
	}
	if !strings.Contains(failed, "config broken") || !strings.Contains(failed, "restart limit reached") {
		t.Errorf("the TASK FAILED line %q does not say what the agent said:\n%s", failed, stdout.String())
	}
	if strings.ContainsAny(warning+failed, "\x1b") {
		t.Errorf("control characters in the lines: %q %q", warning, failed)
	}
}
