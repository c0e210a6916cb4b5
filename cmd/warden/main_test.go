package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// TestMain lets the test binary be warden itself (WARDEN_TEST_MAIN=1) or a
// fake agent, besides running the tests.
func TestMain(m *testing.M) {
	fakeagent.Main()
	if os.Getenv("WARDEN_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// warden returns a command that runs warden (this test binary) with args.
func warden(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "WARDEN_TEST_MAIN=1", fakeagent.Env("unused")[1])
	return cmd
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	os.WriteFile(good, []byte("name = \"t\"\n[[agent]]\nname = \"a\"\ncommand = [\"true\"]\n"), 0o600)
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = \"t\"\n\n[[agent]]\nname = \"a\"\ncomand = [\"true\"]\n"), 0o600)

	out, err := warden("validate", good).CombinedOutput()
	if exitCode(err) != 0 || !strings.Contains(string(out), "ok") {
		t.Errorf("good file: exit %d, %s", exitCode(err), out)
	}
	out, err = warden("validate", bad).CombinedOutput()
	if exitCode(err) != 2 || !strings.Contains(string(out), "bad.toml:5:1") || !strings.Contains(string(out), "comand") {
		t.Errorf("bad file: exit %d, %s; want exit 2 and bad.toml:5:1 naming the key", exitCode(err), out)
	}
	out, err = warden("validate").CombinedOutput()
	if exitCode(err) != 2 {
		t.Errorf("no file: exit %d, %s", exitCode(err), out)
	}
}

func TestEveryExampleValidates(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.toml")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		if out, err := warden("validate", f).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}

// copyExample copies examples/NAME into a temp dir, so its state dir lands there.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../examples", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMainExampleRunsToCompletion(t *testing.T) {
	defer proctest.AssertNone(t)
	team := copyExample(t, "team.toml")
	var stdout, stderr bytes.Buffer
	cmd := warden("run", team)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden run examples/team.toml: %v\n%s", err, stderr.String())
	}
	state := filepath.Join(filepath.Dir(team), ".warden")
	for agent, want := range map[string]string{"builder": "built in", "flaky": "recovered"} {
		log, err := os.ReadFile(filepath.Join(state, "logs", agent+".log"))
		if err != nil || !strings.Contains(string(log), want) {
			t.Errorf("%s log %q (%v), want %q", agent, log, err, want)
		}
	}
	events, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if !strings.Contains(string(events), `"agent_restarted"`) {
		t.Errorf("the flaky agent was not restarted: %s", events)
	}
}

// stubbornTeam writes a team whose one agent ignores SIGTERM.
func stubbornTeam(t *testing.T, timeout string) string {
	argv := fakeagent.Command("ignore")
	env := fakeagent.Env("ignore")
	p := filepath.Join(t.TempDir(), "team.toml")
	body := fmt.Sprintf("name = \"stubborn\"\nshutdown_timeout = %q\n[[agent]]\nname = \"s\"\ncommand = [%q, %q]\nenv = { WARDEN_FAKE_AGENT = \"ignore\", WARDEN_TEST_OWNER = %q }\n",
		timeout, argv[0], argv[1], strings.TrimPrefix(env[1], "WARDEN_TEST_OWNER="))
	os.WriteFile(p, []byte(body), 0o600)
	return p
}

// startWarden starts warden run and waits until its agent has started.
func startWarden(t *testing.T, team string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := warden("run", team)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(filepath.Dir(team), ".warden", "events.jsonl")
	for i := 0; i < 500; i++ {
		if b, _ := os.ReadFile(events); bytes.Contains(b, []byte("agent_started")) {
			time.Sleep(300 * time.Millisecond) // the fake agent installs its signal handlers
			return cmd, &stderr
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatalf("agent did not start: %s", stderr.String())
	return nil, nil
}

func TestSigtermStopsCleanlyWith130(t *testing.T) {
	defer proctest.AssertNone(t)
	cmd, stderr := startWarden(t, stubbornTeam(t, "1s"))
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if exitCode(err) != 130 {
		t.Fatalf("exit %d, want 130\n%s", exitCode(err), stderr)
	}
	if !strings.Contains(stderr.String(), "force terminated") {
		t.Errorf("the stubborn agent's forced kill is not logged:\n%s", stderr)
	}
}

func TestSecondSignalEscalates(t *testing.T) {
	defer proctest.AssertNone(t)
	cmd, stderr := startWarden(t, stubbornTeam(t, "60s"))
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if exitCode(err) != 130 {
			t.Errorf("exit %d, want 130\n%s", exitCode(err), stderr)
		}
		if took := time.Since(t0); took > 3*time.Second {
			t.Errorf("second signal took %s to end warden", took)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("second Ctrl-C did not force the stop (shutdown_timeout 60s)\n%s", stderr)
	}
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	if code := realMain([]string{"frobnicate"}, new(bytes.Buffer), new(bytes.Buffer)); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}
