package hold

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/holder"
)

// spawned is a holder this warden started: its child (warden is a child
// subreaper, so a double fork would only make it its child again), in a
// session of its own, out of reach of the terminal's signals; once warden
// dies it is reparented to the next subreaper or init.
type spawned struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once it exited and was reaped
}

// spawn starts `warden hold` for o, its output appended to o.LogPath.
func spawn(log hclog.Logger, o Options) (*spawned, error) {
	if o.Bin == "" {
		return nil, errors.New("start holder: warden's executable is unknown")
	}
	out, err := os.OpenFile(o.LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start holder: its log: %w", err)
	}
	defer out.Close()
	args := []string{"hold", "--socket", o.Socket}
	if o.OrphanTimeout > 0 {
		args = append(args, "--orphan-timeout", o.OrphanTimeout.String())
	}
	cmd := exec.Command(o.Bin, args...)
	cmd.Dir = o.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start holder: %w", err)
	}
	sp := &spawned{cmd: cmd, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		log.Info("holder exited", "pid", cmd.Process.Pid, "exit", err)
		close(sp.done)
	}()
	log.Info("holder started", "pid", cmd.Process.Pid, "socket", o.Socket, "log", o.LogPath)
	return sp, nil
}

// dialUntil dials the holder sp started until it answers, it exits, or
// the wait is over.
func dialUntil(log hclog.Logger, socket string, sp *spawned, wait time.Duration) (*holder.Client, error) {
	deadline := time.Now().Add(wait)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		c, err := holder.Dial(log, socket)
		if err == nil {
			return c, nil
		}
		select {
		case <-sp.done:
			return nil, fmt.Errorf("the holder exited before it listened (its log says why): %w", err)
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the holder did not listen within %s: %w", wait, err)
		}
		time.Sleep(pause)
	}
}

// wait waits up to timeout for the holder (sp, or pid when an earlier
// warden started it) to exit; then it kills it. It reports whether the
// holder ended within timeout.
func (sp *spawned) wait(timeout time.Duration, pid int) bool {
	if sp != nil {
		select {
		case <-sp.done:
			return true
		case <-time.After(timeout):
			_ = sp.cmd.Process.Kill()
			<-sp.done
			return false
		}
	}
	deadline := time.Now().Add(timeout)
	for pause := 5 * time.Millisecond; pid > 0; pause = min(2*pause, 100*time.Millisecond) {
		if gone(pid) {
			// Started by this process before an upgrade (`warden upgrade`
			// execs in place: the holder stays its child): reaped here, or
			// it would stay a zombie until warden exits. Another's: ECHILD.
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			return true
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return false
		}
		time.Sleep(pause)
	}
	return true
}

// end ends a holder that never answered.
func (sp *spawned) end(timeout time.Duration) {
	_ = sp.cmd.Process.Signal(syscall.SIGTERM)
	sp.wait(timeout, 0)
}

// gone reports whether process pid has exited (a zombie its new parent
// has not reaped yet counts as exited).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}
