//go:build e2e

package runner

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

func TestKillLeftoversOfADeadSupervisor(t *testing.T) {
	defer proctest.AssertNone(t)
	// Processes a supervisor with pid 999999999 started: one ignores SIGTERM
	// and escaped into its own session; one belongs to another supervisor.
	start := func(mode, tag string) *exec.Cmd {
		argv := fakeagent.Command(mode)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(append(os.Environ(), fakeagent.Env(mode)...), RunnerTagEnv+"="+tag)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go cmd.Wait()
		return cmd
	}
	dead := start("ignore", "999999999.3")
	other := start("ignore", "999999998.1")
	defer other.Process.Kill()
	time.Sleep(300 * time.Millisecond) // handlers installed

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	killed, err := KillLeftovers(ctx, 999999999)
	if err != nil {
		t.Fatal(err)
	}
	if len(killed) != 1 || killed[0] != dead.Process.Pid {
		t.Fatalf("killed %v, want only %d", killed, dead.Process.Pid)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("another supervisor's process was killed: %v", err)
	}
}
