//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
)

// Ctrl-C of `timeout 1h warden run …` in a terminal: the terminal sends
// SIGINT to its foreground group — timeout and warden —, and timeout
// forwards the one it got to warden and to its group again. warden gets
// the one keypress two or three times within milliseconds: it is one
// request, a clean stop — the last checkpoints asked for and answered,
// the handoff written, exit 130 —, never the forced stop of a second
// Ctrl-C (issue 31).
func TestCtrlCUnderTimeoutIsOneStop(t *testing.T) {
	defer proctest.AssertNone(t)
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout(1) here")
	}
	team := workerTeam(t, "worker:steps=1000")
	cmd := exec.Command("timeout", "120", os.Args[0], "run", team)
	cmd.Env = warden().Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, as a shell's job: the "terminal's" group
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &lines{}
	cmd.Stderr = stderrWriter{out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go out.read(pipe)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 1)

	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) // the terminal's Ctrl-C, to the whole foreground group
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d, want 130\n%s", exitCode(err), out.dump())
	}
	dir := filepath.Join(filepath.Dir(team), ".warden")
	events := readFile(t, filepath.Join(dir, "events.jsonl"))
	last := false
	for _, l := range strings.Split(events, "\n") {
		last = last || strings.Contains(l, `"event":"checkpoint_received"`) && strings.Contains(l, `"trigger":"team_checkpoint"`)
	}
	if !last || strings.Contains(events, `"event":"agent_force_terminated"`) {
		t.Errorf("the stop was forced: no last checkpoint answered, or a group killed:\n%s", events)
	}
	if log := readFile(t, filepath.Join(dir, "logs", "warden.log")); strings.Contains(log, "forcing") {
		t.Errorf("warden took the one Ctrl-C for two:\n%s", log)
	}
	if out.count("CHECKPOINT COMPLETE") != 1 {
		t.Errorf("no CHECKPOINT COMPLETE:\n%s", out.dump())
	}
}
