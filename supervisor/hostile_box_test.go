//go:build e2e

package supervisor

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// Hostile agents against the box (issue 33): agent a (the fake agent's
// hostile mode) probes a signal to warden (this test process: a real one
// would end it), SIGKILLs agent b, connects to an abstract unix socket
// warden's side listens on, and leaves a process behind with its own
// session, its parent gone and its environment cleared; then the team is
// stopped at once (warden stop --now). With the box every try is refused
// and the stop leaves 0 processes; without it (sandbox = "off") each one
// works — the table of docs/security.md, measured.

// hostileRun is what one run of the two agents did.
type hostileRun struct {
	out      string // a's lines
	bAlive   bool   // b still ran after a's kill
	escapee  int
	survived bool // the escapee outlived the stop
	stdout   string
}

func runHostileBox(t *testing.T, sandbox string) hostileRun {
	t.Helper()
	dir := t.TempDir()
	out, bpid, esc := filepath.Join(dir, "out"), filepath.Join(dir, "bpid"), filepath.Join(dir, "escapee")
	name := "warden-hostile-" + strconv.Itoa(os.Getpid()) + "-" + sandbox
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	mode := "hostile:out=" + out + ":probe=" + strconv.Itoa(os.Getpid()) + ":kill=" + bpid + ":abstract=" + name +
		":read=" + recordKeyPath(t) + ":escape=" + esc
	team, stdout, wait := startTeam(t, fastTimers+"sandbox = \""+sandbox+"\"\n",
		fakeAgent{name: "a", mode: mode, restart: "never"},
		fakeAgent{name: "b", mode: "hostile:pidfile=" + bpid, restart: "never"})
	var lines string
	waitFor(t, "a's tries", func() bool {
		b, _ := os.ReadFile(out)
		lines = string(b)
		return strings.HasSuffix(lines, "done\n")
	})
	r := hostileRun{out: lines}
	b, _ := os.ReadFile(bpid)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	r.bAlive = pid > 0 && processAlive(pid)
	b, _ = os.ReadFile(esc)
	r.escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	if r.escapee <= 0 {
		t.Fatalf("no escapee pid in %s (a's lines: %q)", esc, lines)
	}
	team.Force() // warden stop --now
	wait()
	for deadline := time.Now().Add(2 * time.Second); processAlive(r.escapee) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	r.survived = processAlive(r.escapee)
	if r.survived {
		syscall.Kill(r.escapee, syscall.SIGKILL) // the test's own cleanup
	}
	r.stdout = stdout.String()
	return r
}

// recordKeyPath is where warden keeps the key it seals records with.
func recordKeyPath(t *testing.T) string {
	p, err := state.KeyPath(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// With the box on: a cannot signal warden nor b, cannot reach the abstract
// socket, reads the record key empty (behind the walls), and its escapee
// dies with its box at the stop: 0 survivors. The first line says what the
// box holds.
func TestHostileAgentInTheBox(t *testing.T) {
	defer proctest.AssertNone(t)
	if ok, why := box.Available(); !ok {
		t.Skip("no Landlock scopes on this kernel: " + why)
	}
	r := runHostileBox(t, "box")
	t.Logf("a's tries:\n%s", r.out)
	for _, want := range []string{
		"probe " + strconv.Itoa(os.Getpid()) + ": operation not permitted",
		": operation not permitted\nabstract ", // the kill of b
		"abstract warden-hostile-" + strconv.Itoa(os.Getpid()) + "-box: operation not permitted",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("a's tries lack %q:\n%s", want, r.out)
		}
	}
	if !r.bAlive {
		t.Error("a killed b from inside its box")
	}
	if !strings.Contains(r.out, "read "+recordKeyPath(t)+": 0 bytes") {
		t.Errorf("a read the record key from inside its box (behind its walls it reads empty):\n%s", r.out)
	}
	if r.survived {
		t.Errorf("the escapee %d (setsid, env -i) survived the stop", r.escapee)
	}
	if !strings.Contains(r.stdout, "BOX: cgroup kill on, landlock scopes on (kernel Landlock ABI ") || !strings.Contains(r.stdout, "), walls on") {
		t.Errorf("no line saying what the box holds:\n%s", r.stdout)
	}
}

// With the box off every try works — what docs/security.md says is not
// refused then: the probe of warden, the kill of b, the abstract socket,
// and the escapee outlives the stop.
func TestHostileAgentWithoutTheBox(t *testing.T) {
	defer proctest.AssertNone(t)
	r := runHostileBox(t, "off")
	t.Logf("a's tries:\n%s", r.out)
	if !strings.Contains(r.out, "probe "+strconv.Itoa(os.Getpid())+": allowed") ||
		!strings.Contains(r.out, ": allowed\nabstract ") ||
		!strings.Contains(r.out, "-off: allowed") {
		t.Errorf("without the box a try was refused:\n%s", r.out)
	}
	if r.bAlive {
		t.Error("b survived a's SIGKILL without the box")
	}
	if !strings.Contains(r.out, "read "+recordKeyPath(t)+": 32 bytes") {
		t.Errorf("without the box a did not read the record key (the box-off row of docs/security.md is wrong):\n%s", r.out)
	}
	if !r.survived {
		t.Errorf("the escapee %d did not outlive the stop without the box (the box-off row of docs/security.md is wrong)", r.escapee)
	}
	if !strings.Contains(r.stdout, `BOX: off (sandbox = "off"): not enforced`) {
		t.Errorf("no line saying the box is off:\n%s", r.stdout)
	}
}
