package notify

import (
	"errors"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapWait bounds how long reapGroup waits for killed orphans to die.
const reapWait = 2 * time.Second

// watch reports when the started cmd's process has exited, without reaping
// it: while it is an unreaped zombie its pid, and so its process group id,
// cannot be reused, so the caller can kill the group safely before it calls
// wait (cmd.Wait) to collect the status.
func watch(cmd *exec.Cmd) (exited <-chan struct{}, wait func() error) {
	ch := make(chan struct{})
	pid := cmd.Process.Pid
	go func() {
		defer close(ch)
		for {
			var info unix.Siginfo
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				return // exited, or not waitable (cmd.Wait reports why)
			}
		}
	}()
	return ch, cmd.Wait
}

// reapGroup collects the children of this process left in group pgid once
// the group was killed and its leader reaped. With warden as the child
// subreaper (package runner), a command's orphans are re-parented to warden,
// and nobody else waits for them. It returns when none is left, or after
// reapWait.
func reapGroup(pgid int) {
	deadline := time.Now().Add(reapWait)
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PGID, pgid, &info, unix.WEXITED|unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return // ECHILD: no child of ours in the group
		case info.Signo != int32(syscall.SIGCHLD): // children there, none exited yet
			if time.Now().After(deadline) {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
}
