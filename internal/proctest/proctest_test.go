//go:build e2e

package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

func TestLeftoverIsFoundReportedAndKilled(t *testing.T) {
	argv := fakeagent.Command("ignore")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), fakeagent.Env("ignore")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	found := false
	for _, p := range Leftovers() {
		found = found || p.Pid == pid && p.Pgid == pid && p.Sid == pid
	}
	if !found {
		t.Fatalf("Leftovers() = %v, want pid %d", Leftovers(), pid)
	}
	if GroupGone(pid) {
		t.Error("GroupGone true while the process runs")
	}
	r := &recorder{TB: t}
	AssertNone(r)
	if len(r.errors) != 1 {
		t.Errorf("AssertNone reported %q, want one error", r.errors)
	}
	_ = cmd.Wait() // AssertNone killed it
	if !GroupGone(pid) {
		t.Error("GroupGone false after the process was killed and reaped")
	}
	AssertNone(t)
}
