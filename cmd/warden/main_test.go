//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
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
	"github.com/wardenhq/warden/supervisor"
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
	cmd.Env = append(os.Environ(), "WARDEN_TEST_MAIN=1", fakeagent.Env("unused")[1], "GORACE=atexit_sleep_ms=0")
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

// copyExamples copies examples/ into a temp dir, so state dirs land there,
// and returns the copy of examples/NAME.
func copyExamples(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("../../examples", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../../examples", p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".warden") || d.Name() == "work" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, name)
}

func TestMainExampleRunsToCompletion(t *testing.T) {
	defer proctest.AssertNone(t)
	team := copyExamples(t, "team.toml")
	var stdout, stderr bytes.Buffer
	cmd := warden("run", team)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden run examples/team.toml: %v\n%s", err, stderr.String())
	}
	for _, line := range []string{"CHECKPOINT: T1 - complete (100%)", "CHECKPOINT: T2 - complete (100%)",
		"TASK COMPLETE: T3 (Summarise the inputs) verify: passed"} {
		if !strings.Contains(stdout.String(), line+"  [") { // the line, then when and whose (stdout is no terminal)
			t.Errorf("stdout lacks %q:\n%s", line, stdout.String())
		}
	}
	state := filepath.Join(filepath.Dir(team), ".warden")
	events, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if !strings.Contains(string(events), `"agent_restarted"`) {
		t.Errorf("worker-2 did not crash and restart: %s", events)
	}

	// warden status --json agrees with the files.
	out, err := warden("status", "--json", "--state-dir", state).Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var st struct {
		Running     bool
		Tasks       []struct{ ID, State, Owner string }
		Agents      []struct{ Name, State string }
		Checkpoints map[string]struct {
			TaskID string `json:"task_id"`
			Status string
			Agent  string
		}
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if st.Running || len(st.Tasks) != 3 || len(st.Agents) != 2 {
		t.Fatalf("status: %+v", st)
	}
	for _, task := range st.Tasks {
		name := task.Owner + "-" + task.ID + "-complete.json"
		cp, ok := st.Checkpoints[name]
		if task.State != "complete" || !ok || cp.Status != "complete" || cp.TaskID != task.ID {
			t.Errorf("task %+v: checkpoint %s = %+v", task, name, cp)
		}
		if _, err := os.Stat(filepath.Join(state, "checkpoints", name)); err != nil {
			t.Errorf("status names %s, which is not on disk: %v", name, err)
		}
	}
	human, _ := warden("status", team).Output()
	if !strings.Contains(string(human), "tasks done 3/3") {
		t.Errorf("status dashboard:\n%s", human)
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
	time.Sleep(supervisor.SignalWindow + 200*time.Millisecond) // a second request, not the first one delivered again
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
