//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// An agent's escapee — its own session, its parent gone, its environment
// cleared — outlives `kill -9` of warden (nothing is left to kill it) but
// not the next `warden run` of the team: its box (the dead warden's cgroup)
// is killed whole as the run begins, before any agent of the new run starts.
func TestADeadWardensBoxIsKilledByTheNextRun(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	esc := filepath.Join(dir, "escapee")
	team := workerTeam(t, "hostile:escape="+esc)
	cmd, out := runWarden(t, "run", team)
	first := waitPidFile(t, esc)
	if out.count("BOX: cgroup kill on") == 0 {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		syscall.Kill(first, syscall.SIGKILL)
		t.Skip("no cgroup box here (warden's line: " + strings.Join(out.all, " | ") + "): the kernel or the cgroup tree lacks it")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	defer syscall.Kill(first, syscall.SIGKILL) // on failure only
	time.Sleep(200 * time.Millisecond)
	if !pidAlive(first) {
		t.Fatal("the escapee did not outlive kill -9 of warden: the test tests nothing")
	}
	os.Remove(esc)

	cmd2, out2 := runWarden(t, "run", team)
	deadline := time.Now().Add(10 * time.Second)
	for pidAlive(first) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pidAlive(first) {
		t.Errorf("the dead warden's escapee %d outlived the next run's start:\n%s", first, out2.dump())
	}
	waitPidFile(t, esc) // the new run's agent is up (and left its own escapee)
	cmd2.Process.Signal(syscall.SIGTERM)
	cmd2.Wait()
	if second := waitPidFile(t, esc); pidAlive(second) {
		syscall.Kill(second, syscall.SIGKILL)
		t.Errorf("the new run's escapee %d outlived its stop", second)
	}
}

// waitPidFile waits up to 20 s for file to hold a pid.
func waitPidFile(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// pidAlive reports whether pid is a live, non-zombie process.
func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
