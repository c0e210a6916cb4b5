package runner

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// The process tree warden holds, as the kernel tells it: who may speak for
// an agent (its hooks) and who may not command the team (the control
// socket). Nothing here reads a process's environment: an environment is
// whatever its process wrote there, and any process of the user can copy
// an agent's runner tag into its own.

// maxAncestry bounds a walk up the parent links.
const maxAncestry = 256

// ProcStat is one process as /proc/PID/stat gives it: its ids, and its
// start time, which tells it from a process that gets its pid later.
type ProcStat struct {
	Pid, Ppid, Pgid, Sid int
	// Start is when it started, in clock ticks after boot (field 22).
	Start uint64
}

// Stat reads /proc/PID/stat; ok is false when the process is gone (a
// zombie still has one).
func Stat(pid int) (ProcStat, bool) {
	if pid <= 0 {
		return ProcStat{}, false
	}
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return ProcStat{}, false
	}
	buf := make([]byte, 1024)
	n, err := syscall.Read(fd, buf)
	_ = syscall.Close(fd)
	if err != nil || n <= 0 {
		return ProcStat{}, false
	}
	return parseProcStat(pid, buf[:n])
}

// parseProcStat parses "pid (comm) state ppid pgrp session … starttime …":
// comm may hold spaces and parentheses, so fields start after the last ')'.
func parseProcStat(pid int, b []byte) (ProcStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ProcStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 { // f[0] is field 3 (state), f[19] field 22 (starttime)
		return ProcStat{}, false
	}
	ps := ProcStat{Pid: pid}
	var errs [4]error
	ps.Ppid, errs[0] = strconv.Atoi(string(f[1]))
	ps.Pgid, errs[1] = strconv.Atoi(string(f[2]))
	ps.Sid, errs[2] = strconv.Atoi(string(f[3]))
	ps.Start, errs[3] = strconv.ParseUint(string(f[19]), 10, 64)
	for _, err := range errs {
		if err != nil {
			return ProcStat{}, false
		}
	}
	return ps, true
}

// Ancestry is process pid and its ancestors, nearest first, as /proc shows
// them now. It ends below pid 1, at a process that is gone, or where the
// chain cannot be trusted: a parent that started after its child got its
// pid after the child's parent had exited (the walk raced an exit).
func Ancestry(pid int) []ProcStat {
	var out []ProcStat
	cur, ok := Stat(pid)
	for ok && len(out) < maxAncestry {
		out = append(out, cur)
		if cur.Ppid <= 1 {
			break
		}
		parent, found := Stat(cur.Ppid)
		if !found || parent.Start > cur.Start {
			break
		}
		cur = parent
	}
	return out
}

// DescendsFrom reports whether process pid is anc itself or one of its
// descendants by the parent links (anc told apart from a later process
// with its pid by its start time).
func DescendsFrom(pid int, anc ProcStat) bool {
	for _, p := range Ancestry(pid) {
		if p.Pid == anc.Pid {
			return p.Start == anc.Start
		}
	}
	return false
}

// Self is this process, for DescendsFrom.
func Self() ProcStat {
	ps, _ := Stat(os.Getpid())
	return ps
}

// Owns reports whether process pid is of this process's tree, as the
// kernel says: in its session (a session is inherited, never joined from
// outside, and its id is not given to another process while it has
// members), or one of its descendants by the parent links (one that left
// the session while its parent lives). Once the process was reaped its pid
// may be another's: nothing is owned any more. The runner tag in a
// process's environment is not asked: any process of the user can copy it.
func (p *Process) Owns(pid int) bool {
	if pid <= 0 || p.isReaped() {
		return false
	}
	owned := false
	if ps, ok := Stat(pid); ok && (ps.Sid == p.pid || ps.Pgid == p.pid) {
		owned = true
	} else {
		for _, a := range Ancestry(pid) {
			if a.Pid == p.pid {
				owned = p.start == 0 || a.Start == p.start
				break
			}
		}
	}
	// Reaped meanwhile: the pid may have been given to another process
	// while we read.
	return owned && !p.isReaped()
}

// procStart is the start time of process pid (0 when unknown).
func procStart(pid int) uint64 {
	ps, _ := Stat(pid)
	return ps.Start
}

// CarriesTagOf reports whether process pid's environment holds a runner
// tag of the supervisor process supervisorPid (its agents', inherited by
// what they start): a sign — never a proof, as an environment can be copied
// or cleared — that the process came from one of its agents. Use it only
// to refuse.
func CarriesTagOf(pid, supervisorPid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	prefix := []byte(RunnerTagEnv + "=" + strconv.Itoa(supervisorPid) + ".")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return true
		}
	}
	return false
}
