//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// A team_done command that hangs, having left a sleeper in a session of its
// own, never holds warden's exit (issue 22): Run returns within
// notifyAtExit and a margin, the command's group and its escapee are gone,
// and the log says they were killed. Before, Run waited the rule's timeout
// and a second (21 s here), and the escapee outlived warden.
func TestHangingTeamDoneNeverHoldsTheExit(t *testing.T) {
	defer proctest.AssertNone(t)
	t.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid())) // proctest finds the notify command's processes
	pids := filepath.Join(t.TempDir(), "pids")
	script := `setsid sleep 300 >/dev/null 2>&1 </dev/null & echo "$$ $!" > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 300`
	cfg := writeTeam(t, fmt.Sprintf("[[notify]]\nevents = [\"team_done\"]\ncommand = [\"sh\", \"-c\", %q, %q]\ntimeout = \"20s\"\n", script, pids),
		fakeAgent{name: "quick", mode: "lines:3", restart: "never"})
	logs := &syncBuffer{}
	team, err := New(hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Debug, Output: logs}), cfg, clock.Real{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	runWithEdges(team)
	took := time.Since(start)
	b, _ := os.ReadFile(pids)
	f := strings.Fields(string(b))
	if len(f) != 2 {
		t.Fatalf("the team_done command did not run: %q\n%s", b, logs.String())
	}
	leader, _ := strconv.Atoi(f[0])
	escapee, _ := strconv.Atoi(f[1])
	defer syscall.Kill(escapee, syscall.SIGKILL) // on failure only: no leftover for the next test
	defer syscall.Kill(-leader, syscall.SIGKILL)
	if limit := notifyAtExit + 3*time.Second; took > limit {
		t.Errorf("Run took %s with a hanging team_done command, more than %s", took, limit)
	}
	// Killed before Run returned; on a loaded machine the kernel may take a
	// moment to end a process killed with SIGKILL (it runs no code of its
	// own after the kill).
	gone := func() bool { return proctest.GroupGone(leader) && !processAlive(escapee) }
	for deadline := time.Now().Add(2 * time.Second); !gone() && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if !gone() {
		t.Errorf("the command's group %d or its escapee %d outlived the run by 2 s", leader, escapee)
	}
	for _, want := range []string{"notify command killed at close", "event=team_done", "notify commands still running at exit were killed"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
}

// processAlive reports whether pid is a live, non-zombie process.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
