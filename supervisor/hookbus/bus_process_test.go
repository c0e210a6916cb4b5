//go:build e2e

package hookbus

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
)

func TestHookProcessCannotConnectExitsFast(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) })
	state := t.TempDir()
	// A socket path nobody listens on, and one whose server accepts but
	// never answers: both spool, exit 0, and print nothing.
	dead := filepath.Join(state, "dead.sock")
	for _, sock := range []string{dead, stuckSocket(t)} {
		start := time.Now()
		var stdout, stderr bytes.Buffer
		cmd := hookCmd(HookEnv{Agent: "w1", StateDir: state, Socket: sock}, `{"last_assistant_message":"x"}`, profile.KindClaudeStop)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || stdout.Len() != 0 || stderr.Len() != 0 {
			t.Errorf("hook: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
		}
		if d := time.Since(start); d > SendTimeout+time.Second {
			t.Errorf("hook took %v, want under SendTimeout + 1 s", d)
		}
	}
	msgs, _, _ := Drain(state)
	if len(msgs) != 2 {
		t.Errorf("spooled %d messages, want 2", len(msgs))
	}
	// Without its environment the hook still exits 0 at once, silently.
	cmd := hookCmd(HookEnv{}, `{}`, "no-such-kind")
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("hook without env: %v, %q", err, out)
	}
}

// hookCmd runs this test binary as `warden hook ARGS…`, as the agent's
// own process would: leading a session of its own, with a runner tag.
func hookCmd(env HookEnv, stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"hook"}, args...)...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", envTestHook+"=1", EnvAgent+"="+env.Agent, EnvStateDir+"="+env.StateDir,
		EnvSocket+"="+env.Socket, fakeagent.EnvOwner+"="+itoa(os.Getpid()), runner.RunnerTagEnv+"=1.1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

func itoa(i int) string { return strconv.Itoa(i) }

func netListenUnix(p string) (net.Listener, error) { return net.Listen("unix", p) }

// stuckSocket listens but never reads or answers.
func stuckSocket(t *testing.T) string {
	dir, err := os.MkdirTemp("", "stuck")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := filepath.Join(dir, "s.sock")
	ln, err := netListenUnix(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return p
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
