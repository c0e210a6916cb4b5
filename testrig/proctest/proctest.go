// Package proctest finds processes a test left behind. Every process started
// from a test carries fakeagent.EnvOwner=<test pid> in its environment, and
// descendants inherit it (even those that left the process group or session),
// so scanning /proc/*/environ finds them all.
package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
)

// Proc is one live process.
type Proc struct {
	Pid, Ppid, Pgid, Sid int
	State                byte
	Cmdline              string
}

func (p Proc) String() string {
	return fmt.Sprintf("pid=%d ppid=%d pgid=%d sid=%d state=%c cmd=%q", p.Pid, p.Ppid, p.Pgid, p.Sid, p.State, p.Cmdline)
}

// Leftovers returns the live (non-zombie) processes whose environment says
// they were started by this test process.
func Leftovers() []Proc {
	marker := []byte(fakeagent.EnvOwner + "=" + strconv.Itoa(os.Getpid()))
	self := os.Getpid()
	var out []Proc
	for _, pid := range pids() {
		if pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !hasEntry(env, marker) {
			continue
		}
		p, ok := stat(pid)
		if !ok || p.State == 'Z' || p.State == 'X' {
			continue
		}
		out = append(out, p)
	}
	return out
}

func hasEntry(env, entry []byte) bool {
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, entry) {
			return true
		}
	}
	return false
}

// AssertNone waits up to 2 s for leftovers to vanish; then it fails the test
// listing them and kills them, so that one failure does not cascade.
func AssertNone(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	wait := time.Millisecond
	for {
		left := Leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			lines := make([]string, len(left))
			for i, p := range left {
				lines[i] = p.String()
				_ = syscall.Kill(p.Pid, syscall.SIGKILL)
			}
			t.Errorf("%d leftover process(es):\n%s", len(left), strings.Join(lines, "\n"))
			return
		}
		time.Sleep(wait)
		wait = min(wait*2, 50*time.Millisecond)
	}
}

// GroupGone reports whether no live (non-zombie) process is in group pgid.
func GroupGone(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	for _, pid := range pids() {
		if p, ok := stat(pid); ok && p.Pgid == pgid && p.State != 'Z' && p.State != 'X' {
			return false
		}
	}
	return true
}

func pids() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// stat reads /proc/PID/stat and cmdline; ok is false when the process is gone.
func stat(pid int) (Proc, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Proc{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return Proc{}, false
	}
	p := Proc{Pid: pid, State: f[0][0]}
	p.Ppid, _ = strconv.Atoi(f[1])
	p.Pgid, _ = strconv.Atoi(f[2])
	p.Sid, _ = strconv.Atoi(f[3])
	if cmd, err := os.ReadFile(dir + "/cmdline"); err == nil {
		p.Cmdline = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return p, true
}
