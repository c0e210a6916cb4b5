package hookbus

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/wardenhq/warden/runner"
)

// ErrNotAgents is returned (wrapped) when `warden hook` would spool a
// message but does not run inside the process tree of the agent it names:
// such a line could never be replayed, and is not written.
var ErrNotAgents = fmt.Errorf("not inside the process tree of the agent it names")

// findSender is who `warden hook` is, for a spooled line: walking up its own
// parents (as /proc says, each parent started before its child), the
// topmost of the unbroken run of processes that carry one runner tag is the
// agent's process — it must be a session leader (the runner starts every
// agent so) whose environment names agent. A CLI that strips the tag from a
// hook's environment (Gemini) is fine: the run starts at the first process
// with a tag. What /proc and the environments say here is checked again at
// replay against what the supervisor itself wrote down.
func findSender(agent string) (*Sender, error) {
	chain := runner.Ancestry(os.Getpid())
	if len(chain) == 0 {
		return nil, fmt.Errorf("%w: /proc tells nothing of this process", ErrNotAgents)
	}
	root, tag := -1, ""
	for i, p := range chain {
		t := environValue(p.Pid, runner.RunnerTagEnv)
		if t == "" && tag == "" {
			continue
		}
		if t != tag && tag != "" {
			break
		}
		root, tag = i, t
	}
	if root < 0 {
		return nil, fmt.Errorf("%w (%s): no process above it carries a runner tag", ErrNotAgents, agent)
	}
	r := chain[root]
	if r.Sid != r.Pid {
		return nil, fmt.Errorf("%w (%s): the process carrying its runner tag (pid %d) leads no session", ErrNotAgents, agent, r.Pid)
	}
	if got := environValue(r.Pid, EnvAgent); got != agent {
		return nil, fmt.Errorf("%w (%s): it runs under agent %q", ErrNotAgents, agent, got)
	}
	return &Sender{Pid: chain[0].Pid, Start: chain[0].Start, Agent: r.Pid, AgentStart: r.Start, Tag: tag}, nil
}

// environValue is the value of key in process pid's initial environment
// ("" when it has none, or it cannot be read).
func environValue(pid int, key string) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	prefix := []byte(key + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return string(kv[len(prefix):]) // the first one, as getenv finds it
		}
	}
	return ""
}
