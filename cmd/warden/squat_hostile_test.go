//go:build e2e

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/state"
)

// squatter:LOG:SOCKET… — another user listening where warden's sockets
// go: every line it receives is appended to LOG; a control request is
// answered with a made-up team, a hook message with "ok".
func init() { fakeagent.Register("squatter", modeSquatter) }

func modeSquatter(args []string) int {
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(args[0], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o666)
		if err == nil {
			fmt.Fprintf(f, format+"\n", a...)
			f.Close()
		}
	}
	for _, p := range args[1:] {
		os.Remove(p)
		ln, err := net.Listen("unix", p)
		if err != nil {
			logf("LISTEN FAILED %s: %v", p, err)
			return 1
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					r := bufio.NewReader(io.LimitReader(c, 1<<20))
					for {
						line, err := r.ReadString('\n')
						if line != "" {
							logf("GOT %s", strings.TrimSpace(line))
							if strings.Contains(line, `"cmd"`) {
								fmt.Fprintln(c, `{"ok":true,"ps":{"team":"SQUATTED","pid":1,"agents":[],"tasks":[]},"send":{"outcome":"submitted"}}`)
							} else {
								fmt.Fprintln(c, "ok")
							}
						}
						if err != nil {
							return
						}
					}
				}()
			}
		}()
	}
	logf("LISTENING")
	select {}
}

// squat is a squatter process, run as uid 65534 from a copy of the test
// binary that user may run.
type squat struct {
	cmd *exec.Cmd
	log string
}

func startSquatter(t *testing.T, log string, sockets ...string) *squat {
	t.Helper()
	binDir, err := os.MkdirTemp("", "squat-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(binDir) })
	os.Chmod(binDir, 0o755)
	bin := filepath.Join(binDir, "squatter")
	b, err := os.ReadFile(os.Args[0])
	if err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatalf("copy the test binary: %v", err)
	}
	s := &squat{cmd: exec.Command(bin, "-test.run=^$"), log: log}
	s.cmd.Env = append(fakeagent.Env("squatter:"+log+":"+strings.Join(sockets, ":")), "PATH=/usr/bin:/bin")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start the squatter: %v", err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got := s.got(); strings.Contains(got, "LISTENING") {
			return s
		} else if strings.Contains(got, "FAILED") {
			t.Fatalf("squatter: %s", got)
		}
	}
	t.Fatal("the squatter never listened")
	return nil
}

func (s *squat) got() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// With a state dir too long for a socket and no XDG_RUNTIME_DIR, warden's
// sockets go to $TMPDIR/warden-UID. Another user (uid 65534) made that
// directory first, 0777, and listens on both socket paths: `warden run`
// refuses to start (exit 2, saying to set XDG_RUNTIME_DIR or use a shorter
// state_dir) and starts no agent; `warden ps`, `send` and `stop` refuse to
// talk to the squatter's sockets, and `warden hook` sends it nothing: the
// squatter receives not a byte. The same directory of ours but writable by
// others is refused too; one of ours, private, whose socket is served by
// another user's process is refused after connecting (the listener's uid,
// SO_PEERCRED). A fresh directory is made 0700 and the team runs.
func TestSquattedSocketDirIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("acting as another user (uid 65534) needs root; CI runs the tests as root")
	}
	defer proctest.AssertNone(t)
	base, err := os.MkdirTemp("/tmp", "wsq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	t.Setenv("TMPDIR", base)
	t.Setenv("XDG_RUNTIME_DIR", "")
	// The team file in a directory whose .warden is too long for a socket.
	team := filepath.Join(t.TempDir(), strings.Repeat("d", 100), "team.toml")
	os.MkdirAll(filepath.Dir(team), 0o700)
	if err := os.Rename(opsTeam(t, "checkpoint_timeout = \"1s\"", opsAgent{name: "w", mode: "idle", task: true}), team); err != nil {
		t.Fatal(err)
	}
	long := stateOf(team)
	layout := state.NewLayout(long)
	hookSock, ctlSock := layout.HookSocket(), layout.ControlSocket()
	dir := filepath.Join(base, "warden-"+strconv.Itoa(os.Getuid()))
	if filepath.Dir(hookSock) != dir || filepath.Dir(ctlSock) != dir {
		t.Fatalf("the sockets go to %s and %s, not to %s", hookSock, ctlSock, dir)
	}

	// Another user's directory, open to all, with its sockets listening.
	os.Mkdir(dir, 0o777)
	os.Chmod(dir, 0o777)
	os.Chown(dir, 65534, 65534)
	sq := startSquatter(t, filepath.Join(dir, "squat.log"), hookSock, ctlSock)
	out, errOut, code := wardenBriefly(t, "run", team)
	if code != 2 || !strings.Contains(errOut, "belongs to uid 65534") || !strings.Contains(errOut, "set XDG_RUNTIME_DIR") ||
		!strings.Contains(errOut, "shorter state_dir") {
		t.Errorf("warden run with a squatted socket dir: exit %d\n%s%s", code, out, errOut)
	}
	if evs := eventsNamed(team, "agent_started", ""); len(evs) != 0 {
		t.Errorf("agents started beside a squatted socket dir: %v", evs)
	}
	for _, args := range [][]string{{"ps", team}, {"send", team, "w", "--", "SECRET-TEXT"}, {"stop", team}} {
		out, errOut, code := wardenBriefly(t, args...)
		if code != 1 || !strings.Contains(errOut, "refusing to talk to "+ctlSock) || strings.Contains(out, "SQUATTED") {
			t.Errorf("warden %s: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
	hook := warden("hook", profile.KindClaudeStop)
	hook.Env = append(hook.Env, hookbus.EnvAgent+"=w", hookbus.EnvStateDir+"="+long, hookbus.EnvSocket+"="+hookSock)
	hook.Stdin = strings.NewReader(`{"last_assistant_message":"HOOK-SECRET"}`)
	if out, err := hook.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("warden hook: %v %q", err, out)
	}
	if got := sq.got(); strings.Contains(got, "GOT") {
		t.Errorf("the squatter received:\n%s", got)
	}
	sq.cmd.Process.Kill()
	sq.cmd.Wait()

	// Ours, but others may write to it.
	os.RemoveAll(dir)
	os.Mkdir(dir, 0o777)
	os.Chmod(dir, 0o777)
	if out, errOut, code := wardenBriefly(t, "run", team); code != 2 || !strings.Contains(errOut, "has mode 0777: others may write to it") {
		t.Errorf("warden run with a socket dir of ours open to others: exit %d\n%s%s", code, out, errOut)
	}

	// Ours and private, but the control socket in it is served by another
	// user's process (its file moved in, and made ours).
	os.RemoveAll(dir)
	os.Mkdir(dir, 0o700)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	sq = startSquatter(t, filepath.Join(open, "squat.log"), filepath.Join(open, "c.sock"))
	if err := os.Rename(filepath.Join(open, "c.sock"), ctlSock); err != nil {
		t.Fatal(err)
	}
	os.Lchown(ctlSock, 0, 0)
	out, errOut, code = wardenBriefly(t, "send", team, "w", "--", "SECRET-TEXT")
	if code != 1 || !strings.Contains(errOut, "runs as uid 65534, not as this user") {
		t.Errorf("warden send to a socket served by another user: exit %d\n%s%s", code, out, errOut)
	}
	if got := sq.got(); strings.Contains(got, "GOT") {
		t.Errorf("the squatter received:\n%s", got)
	}
	sq.cmd.Process.Kill()
	sq.cmd.Wait()

	// Fresh: made 0700, and the team runs and answers.
	os.RemoveAll(dir)
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_started", "w", 1)
	if st, err := os.Lstat(dir); err != nil {
		t.Errorf("no fresh socket dir: %v", err)
	} else if st.Mode().Perm() != 0o700 || st.Sys().(*syscall.Stat_t).Uid != uint32(os.Getuid()) {
		t.Errorf("the fresh socket dir: %v, uid %d", st.Mode(), st.Sys().(*syscall.Stat_t).Uid)
	}
	if ps := psOf(t, team); ps["team"] != "ops" {
		t.Errorf("warden ps: %v", ps)
	}
	if out, errOut, code := wardenCmd("stop", team); code != 0 {
		t.Errorf("warden stop: exit %d\n%s%s", code, out, errOut)
	}
	cmd.Wait()
}

// wardenBriefly is wardenCmd for a command that should end at once: one
// still running after 10 s is stopped (SIGTERM), and its exit code is -1.
func wardenBriefly(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd := warden(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return stdout.String(), stderr.String(), exitCode(err)
	case <-time.After(10 * time.Second):
		cmd.Process.Signal(syscall.SIGTERM)
		<-done
		return stdout.String(), stderr.String() + "\n(still running after 10 s: stopped)", -1
	}
}
