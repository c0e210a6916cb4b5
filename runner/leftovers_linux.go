package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// KillLeftovers ends every process started by an earlier warden process
// (pid supervisorPid) that is still alive: after `kill -9` of warden, its
// agents' ptys are hung up but a child that ignores SIGHUP, or a grandchild,
// may live on. They are found by the RunnerTagEnv entry every agent process
// and its descendants inherit ("<supervisor pid>.<n>"), so escapees that left
// their session are found too. TERM first, KILL whatever is left when ctx
// ends. It returns the pids it found.
func KillLeftovers(ctx context.Context, supervisorPid int) ([]int, error) {
	if supervisorPid == os.Getpid() {
		return nil, errors.New("kill leftovers: that supervisor is this process")
	}
	prefix := []byte(RunnerTagEnv + "=" + strconv.Itoa(supervisorPid) + ".")
	find := func() ([]int, error) {
		procs, err := readProcs()
		if err != nil {
			return nil, err
		}
		var pids []int
		for _, pi := range procs {
			if pi.zombie() {
				continue
			}
			env, err := os.ReadFile("/proc/" + strconv.Itoa(pi.pid) + "/environ")
			if err != nil {
				continue
			}
			for _, kv := range bytes.Split(env, []byte{0}) {
				if bytes.HasPrefix(kv, prefix) {
					pids = append(pids, pi.pid)
					break
				}
			}
		}
		return pids, nil
	}
	found, err := find()
	if err != nil || len(found) == 0 {
		return nil, err
	}
	for _, pid := range found {
		syscall.Kill(pid, syscall.SIGTERM)
		syscall.Kill(pid, syscall.SIGCONT)
	}
	killed := false
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		live, err := find()
		if err != nil {
			return found, err
		}
		if len(live) == 0 {
			return found, nil
		}
		select {
		case <-ctx.Done():
			for _, pid := range live {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			// SIGKILL cannot be ignored; give the kernel a bounded moment.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if killed {
				return found, errors.New("kill leftovers: processes survive SIGKILL")
			}
			killed = true
		case <-time.After(wait):
		}
	}
}
