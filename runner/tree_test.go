//go:build e2e

package runner

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// Who is of an agent's tree is the kernel's word: its children, and a
// grandchild that left its session while its parent lives, are; a process
// outside with the agent's runner tag copied into its environment is not;
// once the agent is gone, nothing is.
func TestOwnsByTheKernelNotTheTag(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := Config{Name: "tree", Argv: []string{"/bin/sh", "-c", "sleep 30 & setsid sleep 31 & echo started; wait"},
		Env: fakeagent.Env("unused"), Output: newCapture()}
	p, err := Start(testLogger, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Wait()
	defer p.Signal(syscall.SIGKILL)
	cfg.Output.(*capture).waitFor(t, "started")
	var child, escaped int
	for deadline := time.Now().Add(5 * time.Second); (child == 0 || escaped == 0) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, pid := range proctest.Children(p.Pid()) {
			if st, ok := Stat(pid); ok && st.Sid == p.Pid() {
				child = pid
			} else if ok {
				escaped = pid
			}
		}
	}
	if child == 0 || escaped == 0 {
		t.Fatalf("children of the agent: %v", proctest.Children(p.Pid()))
	}
	outsider := exec.Command("sleep", "30")
	outsider.Env = append(fakeagent.Env("unused"), RunnerTagEnv+"="+p.tag)
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	defer outsider.Wait()
	defer outsider.Process.Kill()
	time.Sleep(50 * time.Millisecond) // exec'd, its environment in place

	for pid, want := range map[int]bool{p.Pid(): true, child: true, escaped: true, outsider.Process.Pid: false, os.Getpid(): false, 1: false} {
		if got := p.Owns(pid); got != want {
			t.Errorf("Owns(%d) = %v, want %v", pid, got, want)
		}
	}
	syscall.Kill(escaped, syscall.SIGKILL)
	p.Signal(syscall.SIGKILL)
	p.Wait()
	if p.Owns(p.Pid()) || p.Owns(child) {
		t.Error("a process that was reaped still owns")
	}
}

// A comm holding spaces and parentheses does not shift the fields.
func TestParseProcStat(t *testing.T) {
	line := "42 (a) (b c) S 7 42 42 34816 42 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 200 18446744073709551615\n"
	ps, ok := parseProcStat(42, []byte(line))
	if !ok || ps != (ProcStat{Pid: 42, Ppid: 7, Pgid: 42, Sid: 42, Start: 123456}) {
		t.Errorf("parseProcStat = %+v, %v", ps, ok)
	}
	if _, ok := parseProcStat(42, []byte("42 (x) S 7 42")); ok {
		t.Error("a short line parsed")
	}
}
