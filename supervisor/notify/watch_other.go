//go:build !linux

package notify

import "os/exec"

// watch reports when the started cmd's process has exited. Without waitid's
// WNOWAIT the process is reaped here, so the group kill that follows may, in
// a rare race, reach a reused process group id; warden is Linux-first.
func watch(cmd *exec.Cmd) (exited <-chan struct{}, wait func() error) {
	ch := make(chan struct{})
	var err error
	go func() {
		defer close(ch)
		err = cmd.Wait()
	}()
	return ch, func() error { <-ch; return err }
}

// reapGroup does nothing: orphans go to init.
func reapGroup(int) {}
