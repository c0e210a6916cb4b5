//go:build e2e

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/testrig/proctest"
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

// promptedOnceAndRecordedOnce checks, for each worker agent of a team of
// "worker:steps=40" agents (agent i on task T(i+1)), that its log shows
// its prompt given once and no resume, and that lines — the stdout of
// every warden that ran it — show each of its answers recorded exactly
// once, in order; then that the process groups of first are gone.
func promptedOnceAndRecordedOnce(t *testing.T, state string, agents []string, lines []string, first map[string][]int) {
	t.Helper()
	for i, a := range agents {
		log, _ := os.ReadFile(filepath.Join(state, "logs", a+".log"))
		if n := strings.Count(string(log), "working on it"); n != 1 || strings.Contains(string(log), "RESUME-SEEN") {
			t.Errorf("%s was given its prompt %d times (want 1), resumed %v", a, n, strings.Contains(string(log), "RESUME-SEEN"))
		}
		seen := map[string]int{}
		var order []string
		for _, l := range lines {
			if p, ok := strings.CutPrefix(l, fmt.Sprintf("CHECKPOINT: T%d - implementing (", i+1)); ok {
				pct, _, _ := strings.Cut(p, ")")
				seen[pct]++
				order = append(order, pct)
			}
		}
		for step := 1; step <= len(order); step++ {
			if want := fmt.Sprint(step*100/40) + "%"; seen[want] != 1 {
				t.Errorf("T%d: step %d (%s) recorded %d times; records %v", i+1, step, want, seen[want], order)
			}
		}
	}
	for a, ps := range first {
		for _, p := range ps {
			if !proctest.GroupGone(p) {
				t.Errorf("%s's process group %d is left after warden stop", a, p)
			}
		}
	}
}
