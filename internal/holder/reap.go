package holder

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/runner"
)

// The holder is its agents' parent and, as a child subreaper, the parent
// of what they orphan. On every SIGCHLD it collects the status of each
// agent's leader (wait4 of that pid, never of -1, so that a status an
// os/exec user of the same process waits for is not taken) and reaps the
// orphans it can tell are an agent's: a zombie child in an agent's session
// or process group, or a child carrying an agent's runner tag. A zombie
// has no environment, so a tagged child is remembered, with its start time,
// when it is seen alive (a scan after every agent's exit, and on every
// SIGCHLD that leaves a child waitable) or killed by terminate: a Go
// program killed shows as a zombie before it can be waited for (its
// other threads are still exiting), and its last SIGCHLD comes later. A
// tagged child that dies before it is ever seen so stays a zombie until
// the holder exits (then init reaps it).

// setSubreaper makes this process the reaper of orphaned descendants.
func setSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// reapPass is one pass of the reaper; h.rmu guards its maps.
func (h *Holder) reapPass() {
	h.rmu.Lock()
	var exited []*agent
	for pid, a := range h.leaders {
		ws, ok, err := runner.Wait4NoHang(pid)
		if !ok && err == nil {
			continue
		}
		delete(h.leaders, pid)
		if err != nil {
			a.log.Error("wait for the agent failed", "error", err)
			ws = syscall.WaitStatus(0xff00) // exit code 255: unknown
		}
		a.leaderReaped(ws)
		exited = append(exited, a)
	}
	if len(exited) > 0 || zombieChildWaiting() {
		h.reapOrphansLocked() // an exit orphans the agent's escapees to us
	}
	for pid, start := range h.strays {
		ps, ok := runner.Stat(pid)
		if !ok || ps.Start != start || ps.Ppid != h.self || h.leaders[pid] != nil {
			delete(h.strays, pid) // gone, or its pid another's
			continue
		}
		if _, ok, err := runner.Wait4NoHang(pid); ok || err != nil {
			delete(h.strays, pid)
		}
	}
	h.rmu.Unlock()
	for _, a := range exited {
		h.agentExited(a)
	}
}

// prepare makes a's tag known before its fork: a child carrying it is
// never taken for a stray before its agent has a pid.
func (h *Holder) prepare(a *agent) {
	h.rmu.Lock()
	h.tags[a.tag] = a
	h.rmu.Unlock()
}

// register records a's leader right after its fork; a status already in
// is collected by the pass it kicks (the SIGCHLD may have come before).
func (h *Holder) register(a *agent, pid int) {
	h.rmu.Lock()
	a.pid = pid
	h.leaders[a.pid] = a
	h.sessions[a.pid] = a
	delete(h.strays, a.pid)
	h.rmu.Unlock()
	h.kickReaper()
}

// reapOrphansLocked scans /proc for children of ours that are an agent's.
func (h *Holder) reapOrphansLocked() {
	d, err := os.Open("/proc")
	if err != nil {
		h.log.Warn("scan processes failed", "error", err)
		return
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		h.log.Warn("scan processes failed", "error", err)
		return
	}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if _, known := h.strays[pid]; err != nil || known || h.leaders[pid] != nil {
			continue
		}
		ps, ok := runner.Stat(pid)
		if !ok || ps.Ppid != h.self {
			continue
		}
		owner := h.sessions[ps.Sid]
		if owner == nil {
			owner = h.sessions[ps.Pgid]
		}
		if owner != nil && owner.pid != pid {
			_, _, _ = runner.Wait4NoHang(pid) // a zombie is reaped, a live one left
			continue
		}
		if a := h.tags[tagOf(pid)]; a != nil && a.pid != 0 && a.pid != pid {
			h.strays[pid] = ps.Start // escaped its session; reaped once it exits
		}
	}
}

// addStrays remembers the processes terminate killed that are children
// of ours, to be reaped once they can be.
func (h *Holder) addStrays(pids []int) {
	h.rmu.Lock()
	for _, pid := range pids {
		if ps, ok := runner.Stat(pid); ok && ps.Ppid == h.self && h.leaders[pid] == nil {
			h.strays[pid] = ps.Start
		}
	}
	h.rmu.Unlock()
	h.kickReaper()
}

// tagOf returns the runner tag in process pid's environment ("" if none).
func tagOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	prefix := []byte(runner.RunnerTagEnv + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v)
		}
	}
	return ""
}

// zombieChildWaiting reports, without reaping, whether any child of this
// process is waitable.
func zombieChildWaiting() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == int32(syscall.SIGCHLD)
}
