//go:build e2e

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// workerTeam writes a team of fake workers that never finish on their own
// (unless steps is small), one task each.
func workerTeam(t testing.TB, modes ...string) string {
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	b.WriteString("name = \"lifecycle\"\ncheckpoint_interval = \"150ms\"\ncheckpoint_timeout = \"2s\"\nshutdown_timeout = \"1s\"\n")
	for i, m := range modes {
		argv := fakeagent.Command(m)
		fmt.Fprintf(&b, "[[agent]]\nname = \"w%d\"\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			i+1, argv[0], argv[1], fakeagent.EnvMode, m, fakeagent.EnvOwner, owner)
		fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"Do task %d.\"\nagent = \"w%d\"\n", i+1, i+1, i+1, i+1)
	}
	p := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// lines collects a process's stdout and lets a test wait for a line.
type lines struct {
	mu     sync.Mutex
	all    []string
	stderr strings.Builder
}

// stderrWriter collects stderr whole (Wait waits for it, unlike a pipe).
type stderrWriter struct{ l *lines }

func (w stderrWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.l.stderr.Write(p)
}

func (l *lines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.all = append(l.all, sc.Text())
		l.mu.Unlock()
	}
}

// dump is everything read so far, stdout then stderr, for a failure message.
func (l *lines) dump() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n") + "\n--- stderr ---\n" + l.stderr.String()
}

func (l *lines) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.all {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func (l *lines) waitFor(t testing.TB, prefix string, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if l.count(prefix) >= n {
			return
		}
	}
	t.Fatalf("no %d× %q on stdout:\n%s", n, prefix, l.dump())
}

// runWarden starts warden with args, its stdout collected.
func runWarden(t testing.TB, args ...string) (*exec.Cmd, *lines) {
	t.Helper()
	cmd := warden(args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	l := &lines{}
	cmd.Stderr = stderrWriter{l}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go l.read(out)
	return cmd, l
}

func TestCheckpointCommandThenCtrlC(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=1000", "worker:steps=1000")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T2 - implementing", 1)

	if msg, err := warden("checkpoint", team).CombinedOutput(); err != nil {
		t.Fatalf("warden checkpoint: %v\n%s", err, msg)
	}
	out.waitFor(t, "CHECKPOINT COMPLETE", 1)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 3) // the rehydrated session checkpoints again
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130", exitCode(err))
	}
	if n := out.count("CHECKPOINT COMPLETE"); n != 2 {
		t.Errorf("CHECKPOINT COMPLETE %d times, want 2", n)
	}
	handoff, _ := os.ReadFile(filepath.Join(filepath.Dir(team), ".warden", "handoff.md"))
	if !strings.Contains(string(handoff), "Reason: stopped by the user") || !strings.Contains(string(handoff), "### T2: task 2") {
		t.Errorf("handoff.md:\n%s", handoff)
	}
}

func TestSecondWardenIsRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=1000")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1", 1)
	msg, err := warden("run", team).CombinedOutput()
	if exitCode(err) != 2 || !strings.Contains(string(msg), "another warden is running for this team") {
		t.Errorf("second warden: exit %d, %s", exitCode(err), msg)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

func TestKill9ThenResumeLosesNoCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=8:spawn=1", "worker:steps=8")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (25%)", 1)
	out.waitFor(t, "CHECKPOINT: T2 - implementing (25%)", 1)
	state := filepath.Join(filepath.Dir(team), ".warden")
	before, _ := filepath.Glob(filepath.Join(state, "checkpoints", "*.json"))

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	time.Sleep(200 * time.Millisecond)
	if len(proctest.Leftovers()) == 0 {
		t.Fatal("nothing survived kill -9 of warden: the test does not test leftover cleanup")
	}

	cmd2, out2 := runWarden(t, "run", team, "--resume")
	if err := cmd2.Wait(); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	for _, id := range []string{"T1", "T2"} {
		if out2.count("CHECKPOINT: "+id+" - complete (100%)") != 1 {
			t.Errorf("%s did not complete after --resume:\n%s", id, strings.Join(out2.all, "\n"))
		}
		if out2.count("CHECKPOINT: "+id+" - implementing (12%)") != 0 {
			t.Errorf("%s started over instead of resuming", id)
		}
	}
	log, _ := os.ReadFile(filepath.Join(state, "logs", "w1.log"))
	if !strings.Contains(string(log), "RESUME-SEEN: You are resuming task T1") {
		t.Errorf("the resumed session was not told where it stood:\n%s", log)
	}
	after, _ := filepath.Glob(filepath.Join(state, "checkpoints", "backups", "*.json"))
	if len(before) == 0 || len(after) == 0 {
		t.Errorf("checkpoints before %v, backups after %v", before, after)
	}
	events, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if !strings.Contains(string(events), "left behind by a dead supervisor") {
		t.Errorf("the dead supervisor's leftovers were not reported:\n%s", events)
	}
}

// A scheduler restarts warden with the same command every time: `run
// --resume` on a state dir that holds no run yet simply starts the team.
func TestResumeWithNothingToResumeStarts(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=2", "worker:steps=2")
	cmd, out := runWarden(t, "run", team, "--resume")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run --resume on a new state dir: %v\n%s", err, out.dump())
	}
	if out.count("TASK COMPLETE: T1") != 1 || out.count("TASK COMPLETE: T2") != 1 {
		t.Errorf("the team did not run:\n%s", out.dump())
	}
}
