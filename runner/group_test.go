//go:build e2e

package runner

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command run InGroup whose context ends takes everything it started with
// it: its child that ignores the signal is gone after KillGroup, and Wait
// returns within the wait although the child held its output.
func TestInGroupEndsTheWholeGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", `trap "" TERM; (trap "" TERM; exec sleep 60) & echo $!; wait`)
	InGroup(cmd, syscall.SIGTERM, 200*time.Millisecond)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	child, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("child pid %q: %v", buf[:n], err)
	}
	cancel()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return: the group ignored TERM and held the output")
	}
	KillGroup(cmd)
	deadline := time.Now().Add(5 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the child %d outlived KillGroup", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs: it exists and is not a zombie (a test
// binary that became the child subreaper — the reaper's tests — adopts the
// orphan and leaves it unreaped).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
