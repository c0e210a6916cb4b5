//go:build e2e

package main

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// kill9ThenRun kills the warden of cmd with -9 and runs team again: the
// new warden, once its first line says it took agent back from the
// holder (its task T1).
func kill9ThenRun(t *testing.T, cmd *exec.Cmd, team, agent string) (*exec.Cmd, *lines) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	cmd2, out2 := runWarden(t, "run", team)
	out2.waitFor(t, "CARRYING ON:", 1)
	if want := "taken back mid-turn from the holder: " + agent + " (T1, pid "; !strings.Contains(out2.first(), want) {
		stopRun(cmd2)
		t.Fatalf("the first line does not say %s was taken back:\n%s", agent, out2.first())
	}
	return cmd2, out2
}
