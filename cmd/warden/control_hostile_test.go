//go:build e2e

package main

import (
	"bytes"
	"context"
	"fmt"
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
)

// ctlattack:DIR — a hostile agent of a team: once DIR/go exists it runs, as
// warden commands from inside its own process tree, each of ctlAttacks
// against the agent "w" (its team's state dir from WARDEN_STATE_DIR), a
// file DIR/NAME.out each with the exit code and what it printed; the last
// one is started by a process that leaves its session and exits at once,
// so that warden adopts it. Then it creates DIR/done and stays.
//
// ctlhop:DIR:NAME:ARGS… starts `warden ARGS…` in a session of its own,
// its output to DIR/NAME.out, and exits without waiting for it; the
// process (ctlorphan:ARGS…) becomes warden only once its parent is gone
// and warden has adopted it — on a loaded machine it could otherwise ask
// while the hop, inside the agent's tree, is still its parent.
func init() {
	fakeagent.Register("ctlattack", modeCtlAttack)
	fakeagent.Register("ctlhop", modeCtlHop)
	fakeagent.Register("ctlorphan", modeCtlOrphan)
}

// ctlAttacks are what the hostile agent tries: look, answer the other
// agent's dialog (send --force, attach --rw typing "2" and Enter), restart
// it, stop the team.
var ctlAttacks = []struct {
	name, stdin string
	args        []string
}{
	{"ps", "", []string{"ps", "--json"}},
	{"screen", "", []string{"screen", "w"}},
	{"send", "", []string{"send", "--force", "w", "--", "2"}},
	{"attach", "2\r", []string{"attach", "--rw", "w"}},
	{"restart", "", []string{"restart", "w"}},
	{"stop", "", []string{"stop", "--no-wait"}},
}

// agentEnv is the agent's environment for `warden ARGS…` (the test binary
// as warden), minus the fake agent's mode.
func agentEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, fakeagent.EnvMode+"=") {
			env = append(env, kv)
		}
	}
	return append(env, "WARDEN_TEST_MAIN=1")
}

func modeCtlAttack(args []string) int {
	dir, state := args[0], os.Getenv("WARDEN_STATE_DIR")
	fmt.Println("ctlattack: waiting")
	for {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, a := range ctlAttacks {
		full := append([]string{a.args[0], "--state-dir", state}, a.args[1:]...)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, os.Args[0], full...)
		cmd.Env = agentEnv()
		cmd.Stdin = strings.NewReader(a.stdin)
		out, err := cmd.CombinedOutput()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		os.WriteFile(filepath.Join(dir, a.name+".out"), fmt.Appendf(nil, "exit=%d\n%s", code, out), 0o600)
	}
	// The same stop from a process that left the agent's session and
	// whose parent is gone: warden, the child subreaper, adopts it.
	hop := exec.Command(os.Args[0], "-test.run=^$")
	hop.Env = append(os.Environ(), fakeagent.EnvMode+"=ctlhop:"+dir+":escaped-stop:stop:--state-dir:"+state+":--no-wait")
	if hop.Run() != nil {
		fmt.Println("ctlattack: the hop failed")
	}
	os.WriteFile(filepath.Join(dir, "done"), []byte("done\n"), 0o600)
	fmt.Println("ctlattack: done")
	select {}
}

func modeCtlHop(args []string) int {
	dir, name := args[0], args[1]
	f, err := os.Create(filepath.Join(dir, name+".out"))
	if err != nil {
		return 1
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=ctlorphan:%d:%s", fakeagent.EnvMode, os.Getpid(), strings.Join(args[2:], ":")))
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 1
	}
	return 0 // without waiting: its child is an orphan now
}

func modeCtlOrphan(args []string) int {
	hop, _ := strconv.Atoi(args[0])
	for deadline := time.Now().Add(10 * time.Second); os.Getppid() == hop; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Println("ctlorphan: the hop never exited")
			return 1
		}
	}
	err := syscall.Exec(os.Args[0], append([]string{os.Args[0]}, args[1:]...), agentEnv())
	fmt.Println("ctlorphan: exec:", err)
	return 1
}

// An agent runs warden's operating commands from inside its own process
// tree (and once from a process that left its session and was adopted by
// warden) against another agent that waits on a permission dialog: every
// one is refused with the reason — the control socket serves the person,
// not the agents — the other agent's dialog gets no keystroke, nothing is
// restarted, the team goes on; and the person's own `warden stop` still
// works.
func TestAgentIsRefusedOnTheControlSocket(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	dialogLog := filepath.Join(dir, "dialog.log")
	team := opsTeam(t, "checkpoint_interval = \"1h\"\ncheckpoint_timeout = \"2s\"",
		opsAgent{name: "w", mode: "tui-dialog:" + dialogLog, profile: "claude", task: true},
		opsAgent{name: "evil", mode: "ctlattack:" + dir, task: true})
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "w", 1)
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o600)
	evilLog := filepath.Join(stateOf(team), "logs", "evil.log")
	waitFile(t, filepath.Join(dir, "done"), evilLog)
	escaped := waitFile(t, filepath.Join(dir, "escaped-stop.out"), evilLog)

	for _, a := range ctlAttacks {
		out, _ := os.ReadFile(filepath.Join(dir, a.name+".out"))
		if !bytes.HasPrefix(out, []byte("exit=1\n")) || !bytes.Contains(out, []byte("refused: pid ")) ||
			!bytes.Contains(out, []byte("inside agent evil's process tree: the control socket serves the person, not the agents")) {
			t.Errorf("warden %s from inside the agent: %q, want exit 1 and the refusal", strings.Join(a.args, " "), out)
		}
	}
	if !strings.Contains(escaped, "refused: pid ") || !strings.Contains(escaped, "was started by this warden") {
		t.Errorf("warden stop from a process the agent left behind: %q, want the refusal", escaped)
	}
	time.Sleep(300 * time.Millisecond) // what a refused request could have typed is in the log by now
	if b, _ := os.ReadFile(dialogLog); bytes.Contains(b, []byte("TYPED")) || bytes.Contains(b, []byte("APPROVED")) {
		t.Errorf("the other agent's dialog was answered:\n%s", b)
	}
	if w := agentOf(psOf(t, team), "w"); w["state"] != "waiting" || w["attempt"].(float64) != 1 {
		t.Errorf("the other agent after the attacks: %v, want it still waiting on its dialog, first attempt", w)
	}
	for _, name := range []string{"stop_requested", "restart_requested", "text_sent", "viewer_attached", "agent_restarted"} {
		if evs := eventsNamed(team, name, ""); len(evs) != 0 {
			t.Errorf("an agent's refused request made %s: %v", name, evs)
		}
	}
	// The person, from a terminal of their own.
	if out, errOut, code := wardenCmd("stop", team); code != 0 || !strings.HasSuffix(out, "warden is done\n") {
		t.Errorf("the person's warden stop: exit %d\n%s%s", code, out, errOut)
	}
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Errorf("warden run after the person's stop: exit %d, want 130", exitCode(err))
	}
}

// waitFile waits for a file to exist and hold something; it returns it.
// On failure it shows the log at logPath (the agent's).
func waitFile(t *testing.T, path, logPath string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
	}
	log, _ := os.ReadFile(logPath)
	t.Fatalf("%s never came; %s:\n%s", path, logPath, log)
	return ""
}
