//go:build !e2e

package box

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// needScopes skips where the kernel has no Landlock scopes (ABI < 6): there
// the box is the cgroup alone, as warden's first line says.
func needScopes(t *testing.T) {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip("no Landlock scopes on this kernel: " + why)
	}
}

// kill0 runs `kill -0 pid` in sh, scoped or not, and returns its stderr
// ("" when the signal was allowed).
func kill0(t *testing.T, pid int, scoped bool) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", "kill -0 "+strconv.Itoa(pid)+" 2>&1 && echo allowed")
	var out []byte
	run := func() error {
		var err error
		out, err = cmd.Output()
		return err
	}
	var err error
	if scoped {
		err = Scoped(run)
	} else {
		err = run()
	}
	if err != nil && !strings.Contains(string(out), "ermitted") {
		t.Fatalf("kill -0 %d (scoped %v): %v: %s", pid, scoped, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A process started in the box cannot signal the process that started it
// (warden) nor a process in another box (another agent); outside the box it
// can, and warden can still signal into the box.
func TestScopedProcessCannotSignalOutsideItsBox(t *testing.T) {
	needScopes(t)
	if got := kill0(t, os.Getpid(), false); got != "allowed" {
		t.Fatalf("without the box, kill -0 of the test: %q", got)
	}
	if got := kill0(t, os.Getpid(), true); !strings.Contains(got, "not permitted") {
		t.Errorf("in the box, kill -0 of warden: %q, want Operation not permitted", got)
	}
	other := exec.Command("sleep", "30")
	if err := Scoped(other.Start); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	if got := kill0(t, other.Process.Pid, true); !strings.Contains(got, "not permitted") {
		t.Errorf("in a box, kill -0 of a process in another box: %q, want Operation not permitted", got)
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("warden cannot signal into a box: %v", err)
	}
	// Warden's own threads stayed outside: this process can still signal
	// a process of its own.
	if got := kill0(t, os.Getpid(), false); got != "allowed" {
		t.Errorf("after Scoped, an unscoped child's kill -0 of the test: %q", got)
	}
}

// Inside its box a process still signals what it started itself (a shell's
// job control, a CLI stopping its own tool).
func TestScopedProcessSignalsItsOwnChildren(t *testing.T) {
	needScopes(t)
	cmd := exec.Command("sh", "-c", "sleep 30 & kill -TERM $! && wait $!; echo rc=$?")
	var out []byte
	if err := Scoped(func() error { var err error; out, err = cmd.Output(); return err }); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "rc=143" {
		t.Errorf("the boxed shell's kill of its own child: %q, want rc=143", got)
	}
}

func TestABIIsReported(t *testing.T) {
	v, err := ABI()
	t.Logf("Landlock ABI %d (%v)", v, err)
	if err == nil && v < 1 {
		t.Errorf("ABI %d without an error", v)
	}
}

// Warden's main thread — the one whose id is warden's pid — never enters a
// box, however often Scoped runs: its no_new_privs stays 0, and a boxed
// child is refused a signal to warden every time.
func TestScopedNeverBoxesTheMainThread(t *testing.T) {
	needScopes(t)
	for i := 0; i < 30; i++ {
		if got := kill0(t, os.Getpid(), true); !strings.Contains(got, "not permitted") {
			t.Fatalf("run %d: in the box, kill -0 of warden: %q", i, got)
		}
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getpid()) + "/task/" + strconv.Itoa(os.Getpid()) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "NoNewPrivs:\t0") {
		t.Errorf("the main thread has no_new_privs set (it was boxed):\n%s", b)
	}
}
