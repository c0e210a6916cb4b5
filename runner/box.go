package runner

import (
	"os/exec"

	"github.com/wardenhq/warden/internal/box"
)

// StartIn starts cmd (prepared, not started) in cg — a cgroup v2 group the
// caller made, nil for warden's own — and, when scoped, in a Landlock
// domain of its own (internal/box): how warden starts the commands it runs
// beside its agents (a task's verify, a notify command) in a box like an
// agent's; behind the walls built to walls when it asks for any.
func StartIn(cmd *exec.Cmd, cg *Cgroup, scoped bool, walls box.WallSpec) error {
	cg.apply(cmd)
	if !walls.Empty() {
		if err := box.Walls(cmd, walls); err != nil {
			return err
		}
	}
	return inBox(scoped, cmd.Start)
}

// inBox runs start, in a Landlock domain of its own when scoped.
func inBox(scoped bool, start func() error) error {
	if !scoped {
		return start()
	}
	return box.Scoped(start)
}

// CommandBox is the box of one command warden runs beside its agents:
// Start starts the command inside it, Close kills whatever is left inside
// (a whole cgroup: escapees that left the command's group, session and
// environment too) and takes it down.
type CommandBox interface {
	Start(cmd *exec.Cmd) error
	Close() error
}
