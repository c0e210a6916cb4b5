package runner

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// NewTag returns a fresh runner tag ("<this pid>.<n>", never given twice by
// this process). Set as RunnerTagEnv in the environment of a command warden
// runs beside its agents (a notify command), it is inherited by everything
// the command starts, whatever it does with its process group or session;
// KillTagged then ends all of it. A warden killed with -9 leaves processes
// whose tags hold its pid: KillLeftovers finds them.
func NewTag() string { return newTag() }

// KillTagged sends SIGKILL to every live process whose environment holds
// RunnerTagEnv=tag — what a command started with that tag left, in its
// process group or escaped from it (setsid, a double fork) — and scans again
// until none is alive, for at most wait. The killed processes that are
// children of this process (orphans re-parented to it, the child subreaper)
// are reaped, except pid except (a command's own first process, which its
// exec.Cmd reaps). It returns the pids it killed. Not found, as by an
// agent's sweep (escape_linux.go): a process that replaced its environment
// at an exec, or runs as another user.
func KillTagged(tag string, except int, wait time.Duration) ([]int, error) {
	entry := RunnerTagEnv + "=" + tag
	self := os.Getpid()
	deadline := time.Now().Add(wait)
	starts := map[int]uint64{} // the killed, by pid, with their start times
	var killed []int
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		procs, err := readProcs()
		if err != nil {
			return killed, fmt.Errorf("kill processes tagged %s: %w", tag, err)
		}
		live := 0
		for _, pi := range procs {
			if pi.pid == self || pi.zombie() || !hasEnvEntry(pi.pid, entry) {
				continue
			}
			_ = syscall.Kill(pi.pid, syscall.SIGKILL)
			live++
			if _, ok := starts[pi.pid]; !ok {
				starts[pi.pid] = procStart(pi.pid)
				killed = append(killed, pi.pid)
			}
		}
		if live == 0 {
			break
		}
		if time.Now().After(deadline) {
			reapKilled(starts, self, except)
			return killed, fmt.Errorf("kill processes tagged %s: %d still alive after %s", tag, live, wait)
		}
		time.Sleep(pause)
	}
	reapKilled(starts, self, except)
	return killed, nil
}

// reapKilled reaps the killed processes that are now zombie children of
// this process (pid self), told apart from a later process with the same pid
// by their start times.
func reapKilled(starts map[int]uint64, self, except int) {
	for pid, start := range starts {
		if pid == except {
			continue
		}
		if ps, ok := Stat(pid); ok && ps.Ppid == self && ps.Start == start {
			_, _, _ = Wait4NoHang(pid)
		}
	}
}
