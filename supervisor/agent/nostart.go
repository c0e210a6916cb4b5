package agent

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// An agent whose command can never start as it is — not on PATH, no such
// file, not executable, not a program — fails at once: each restart the
// policy allows would fail the same way, a second apart, and say nothing
// more.

// cannotStart is why a process that did not start (err, its start error)
// never will: "could not start: exec: "claude": executable file not found
// in $PATH"; "" for an error that may pass (no pty left, too many files).
func cannotStart(err error) string {
	if err == nil {
		return ""
	}
	var (
		ee *exec.Error
		pe *fs.PathError
	)
	for _, permanent := range []error{exec.ErrNotFound, exec.ErrDot, fs.ErrNotExist, fs.ErrPermission, syscall.ENOEXEC, syscall.ENOTDIR, syscall.EISDIR} {
		if !errors.Is(err, permanent) {
			continue
		}
		switch {
		case errors.As(err, &ee):
			return "could not start: " + ee.Error()
		case errors.As(err, &pe):
			return "could not start: " + pe.Error()
		}
		return "could not start: " + err.Error()
	}
	return ""
}

// failNow fails the agent whose command could not start (end.noStart):
// agent_failed with that reason, its task handed on or failed, a line
// that says why.
func (a *Agent) failNow(task *config.Task, exit runner.Exit, end ended) {
	a.log.Error("agent failed: its command cannot start", "reason", end.noStart)
	a.d.Events.Emit(event.AgentFailed, a.cfg.Name, taskID(task), "reason", end.noStart, "last_lines", end.lines)
	a.setState(state.Failed, exit, end.noStart)
	a.failTasks(task, end.noStart, end)
}
