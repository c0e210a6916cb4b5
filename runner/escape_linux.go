package runner

import (
	"fmt"
	"os"
)

// Finding everything an agent started.
//
// A sweep scans /proc/*/stat once and collects, for one agent:
//   - its process group and its session (pgid or sid equal to the agent's pid);
//   - their descendants, by following ppid links down from them, which finds
//     an escapee (a process that called setsid or setpgid) while its parent
//     is still alive;
//   - direct children of this process that are neither registered agents nor
//     in our own session and whose environment carries the agent's
//     RunnerTagEnv entry: escapees whose parent died and which, because the
//     reaper made us a child subreaper, were re-parented to us; plus their
//     descendants.
//
// The tag check narrows the brief's "direct children of ours not in our
// session": without it, a child that other code in this process started with
// Setsid (a bare pty.Start, a verify command) would be killed by the first
// agent's Kill.
//
// What Linux does not let us find this way:
//   - a double fork whose middle process died before we scanned and whose
//     orphan is not a child of ours because the subreaper could not be set
//     (prctl failed, or another subreaper sits between us and the agent): the
//     orphan goes to init and no ppid link leads to it;
//   - an escapee that replaced its environment (execve with a clean env) and
//     was re-parented to us: it has no tag, so it is not claimed;
//   - processes that changed uid: /proc/PID/environ is unreadable to us
//     unless we are root, and we may not signal them anyway;
//   - anything in another pid namespace (a container the agent started):
//     /proc shows only our namespace;
//   - a process forked between the scan and the kill: Kill sweeps repeatedly
//     until a scan finds nothing alive, which narrows but does not close it.
//
// An escaped orphan that dies on its own before any sweep or reaper scan saw
// it alive stays a zombie child of ours: without its tag (a zombie's environ
// is empty) it cannot be told apart from another child of this process.
// Zombies hold no resources but a pid and are not counted by Alive.
//
// Only cgroups are airtight: putting each agent in its own cgroup (v2) and
// killing with cgroup.kill catches every descendant, whatever it did with
// its session, group, parent or environment.
func (p *Process) sweep() ([]procInfo, error) {
	procs, err := readProcs()
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", p.name, err)
	}
	r := theReaper
	self := os.Getpid()
	children := make(map[int][]int, len(procs))
	byPid := make(map[int]procInfo, len(procs))
	var queue []int
	for _, pi := range procs {
		if pi.pid == self {
			continue
		}
		byPid[pi.pid] = pi
		children[pi.ppid] = append(children[pi.ppid], pi.pid)
		switch {
		case pi.pgid == p.pid || pi.sid == p.pid:
			queue = append(queue, pi.pid)
		case pi.ppid == self && pi.sid != r.selfSid && !pi.zombie() && !r.isAgent(pi.pid) &&
			hasEnvEntry(pi.pid, RunnerTagEnv+"="+p.tag):
			queue = append(queue, pi.pid)
		}
	}
	found := make(map[int]bool, len(queue))
	var out []procInfo
	var ours []int
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if found[pid] {
			continue
		}
		found[pid] = true
		pi := byPid[pid]
		out = append(out, pi)
		if pi.ppid == self && pid != p.pid {
			ours = append(ours, pid)
		}
		queue = append(queue, children[pid]...)
	}
	if len(ours) > 0 {
		r.adopt(p, ours)
	}
	return out, nil
}

func (r *reaper) isAgent(pid int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[pid] != nil
}
