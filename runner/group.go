package runner

import (
	"os/exec"
	"syscall"
	"time"
)

// InGroup prepares cmd, before Start, to run in a process group of its
// own, as every command warden runs beside its agents does (a verify, git,
// a notify command, a status-line command): the end of its context (a cmd
// made by exec.CommandContext) sends sig to the whole group, not only to
// its first process, and Wait waits at most wait for output that a process
// it left holds open. KillGroup then ends what is left.
func InGroup(cmd *exec.Cmd, sig syscall.Signal, wait time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Cancel != nil { // made by exec.CommandContext: only then may Cancel be set
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, sig) }
	}
	cmd.WaitDelay = wait
}

// KillGroup sends SIGKILL to what is left of the process group of cmd,
// started with InGroup (nothing when it never started). Before cmd is
// reaped its pid is still its group's id; after, the id stays reserved
// while a member of the group lives.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
