package hookbus

import (
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/state"
)

// socketOf is the hook socket of the state dir at dir.
func socketOf(dir string) string { return state.NewLayout(dir).HookSocket() }

// spoolOf is an agent's spool file in the state dir at dir.
func spoolOf(dir, agent string) (string, error) { return state.NewLayout(dir).HookSpool(agent) }

// inAgent is env as a hook running inside agent env.Agent's process tree
// has it: the test process runs RunHook itself, outside every agent, so
// who spools is made up (an agent process of pid 1, started at tick 1).
func inAgent(env HookEnv) HookEnv {
	env.whoAmI = func(agent string) (*Sender, error) {
		return &Sender{Pid: os.Getpid(), Start: 2, Agent: 1, AgentStart: 1, Tag: "1.1"}, nil
	}
	return env
}

func testLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Warn, Output: os.Stderr})
}

func listen(t *testing.T, state string) *Server {
	t.Helper()
	s, err := Listen(testLogger(), socketOf(state))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func receive(t *testing.T, s *Server) Message {
	t.Helper()
	select {
	case m := <-s.Messages():
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
		return Message{}
	}
}
