package session

import (
	"context"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
)

// Process is the agent's process as a session drives it. In production it
// is a *runner.Process: a program under a pty in a process group of its
// own. The team core's simulation (supervisor/sim) puts an in-process agent
// behind it; nothing else differs between the two.
type Process interface {
	Pid() int                             // the process (and group) id
	Write(b []byte) (int, error)          // typed into its terminal
	Resize(size runner.Size) error        // its window
	Signal(sig syscall.Signal) error      // to its whole group (SIGSTOP, SIGCONT, SIGTERM…)
	Done() <-chan struct{}                // closed after it exited and its output was drained
	Exit() runner.Exit                    // how it ended; valid after Done
	Stop(ctx context.Context) runner.Exit // TERM, wait for the group until ctx ends, then kill and wait for Done
	Kill() error                          // SIGKILL to the group and every escapee; idempotent
	Alive() bool                          // any process of it (descendants, escapees) still exists
	Owns(pid int) bool                    // pid is of its process tree
}

// Starter starts an agent's process; the process's output goes to
// cfg.Output, in order, from one goroutine.
type Starter func(log hclog.Logger, cfg runner.Config) (Process, error)

// StartProcess is the production Starter: runner.Start.
func StartProcess(log hclog.Logger, cfg runner.Config) (Process, error) {
	p, err := runner.Start(log, cfg)
	if err != nil {
		return nil, err
	}
	return p, nil
}
