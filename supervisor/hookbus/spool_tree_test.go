//go:build e2e

package hookbus

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
)

// `warden hook` spools only inside the process tree of the agent it names
// and records who spooled: not from a process outside every agent, not
// from an agent's process that names another agent; from inside, the line
// names the agent's process (its session leader, carrying the runner tag).
func TestSpoolOnlyInsideTheNamedAgentsTree(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) })
	state := t.TempDir()
	run := func(agentEnv, claimed string, inSession bool) *exec.Cmd {
		hook := shellQuote(os.Args[0]) + " hook " + profile.KindClaudeStop
		if claimed != agentEnv {
			hook = EnvAgent + "=" + claimed + " " + hook
		}
		cmd := exec.Command("/bin/sh", "-c", hook+"; true")
		cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", envTestHook+"=1", EnvAgent+"="+agentEnv,
			EnvStateDir+"="+state, fakeagent.EnvOwner+"="+itoa(os.Getpid()))
		if inSession {
			cmd.Env = append(cmd.Env, runner.RunnerTagEnv+"=7.1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		cmd.Stdin = strings.NewReader(`{"last_assistant_message":"x"}`)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Errorf("hook: %v %q", err, out)
		}
		return cmd
	}
	run("w1", "w1", false)
	run("w1", "w2", true)
	if msgs, _, _ := Drain(state); len(msgs) != 0 {
		t.Errorf("spooled from outside the named agent's tree: %+v", msgs)
	}
	if b, _ := os.ReadFile(filepath.Join(state, "logs", "hook.log")); bytes.Count(b, []byte("not inside the process tree of the agent it names")) != 2 {
		t.Errorf("hook.log does not say why, twice:\n%s", b)
	}
	agent := run("w1", "w1", true)
	msgs, _, _ := Drain(state)
	if len(msgs) != 1 || msgs[0].Sender == nil || msgs[0].Sender.Agent != agent.ProcessState.Pid() || msgs[0].Sender.Tag != "7.1" ||
		msgs[0].Sender.Pid == agent.ProcessState.Pid() || msgs[0].Sender.Start < msgs[0].Sender.AgentStart {
		t.Errorf("spooled from inside the agent (pid %d): %+v", agent.ProcessState.Pid(), msgs)
	}
}
