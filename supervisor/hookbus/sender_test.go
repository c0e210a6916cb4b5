//go:build e2e

package hookbus

import (
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol/profile"
)

// The sender of a message is checked while it still waits for its reply:
// a `warden hook` process exits as soon as it is answered, and a check
// made when the team reads the message would find no such process.
func TestSenderIsCheckedBeforeItIsAnswered(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) })
	state := t.TempDir()
	s := listen(t, state)
	alive := make(chan bool, 1)
	s.CheckSenders(func(agent string, pid int) bool {
		ok := agent == "w1" && pid > 0 && syscall.Kill(pid, 0) == nil
		alive <- ok
		return ok
	})
	cmd := hookCmd(HookEnv{Agent: "w1", StateDir: state, Socket: socketOf(state)}, `{"last_assistant_message":"x"}`, profile.KindClaudeStop)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook: %v\n%s", err, out)
	}
	m := receive(t, s) // the hook has exited by now
	if m.Pid != cmd.ProcessState.Pid() || !m.Checked || !m.Owned || !<-alive {
		t.Errorf("message from pid %d (hook %d): checked %v, owned %v", m.Pid, cmd.ProcessState.Pid(), m.Checked, m.Owned)
	}
}
