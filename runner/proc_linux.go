package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// procInfo is one line of /proc/PID/stat, the fields the runner uses.
type procInfo struct {
	pid, ppid, pgid, sid int
	state                byte // 'Z' zombie, 'X' dead
}

func (pi procInfo) zombie() bool { return pi.state == 'Z' || pi.state == 'X' }

// readProcs scans /proc/*/stat once. Processes that vanish during the scan
// are skipped.
func readProcs() ([]procInfo, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("open /proc: %w", err)
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	out := make([]procInfo, 0, len(names))
	buf := make([]byte, 1024)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if pi, ok := readStat(pid, buf); ok {
			out = append(out, pi)
		}
	}
	return out, nil
}

// readStat parses /proc/PID/stat into buf; ok is false if it is gone.
func readStat(pid int, buf []byte) (procInfo, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return procInfo{}, false
	}
	n, err := syscall.Read(fd, buf)
	_ = syscall.Close(fd)
	if err != nil || n <= 0 {
		return procInfo{}, false
	}
	return parseStat(pid, buf[:n])
}

// parseStat parses "pid (comm) state ppid pgrp session ..."; comm may hold
// spaces and parentheses, so fields start after the last ')'.
func parseStat(pid int, b []byte) (procInfo, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) == 0 {
		return procInfo{}, false
	}
	pi := procInfo{pid: pid, state: f[0][0]}
	var e1, e2, e3 error
	pi.ppid, e1 = strconv.Atoi(string(f[1]))
	pi.pgid, e2 = strconv.Atoi(string(f[2]))
	pi.sid, e3 = strconv.Atoi(string(f[3]))
	return pi, e1 == nil && e2 == nil && e3 == nil
}

// hasEnvEntry reports whether process pid's initial environment holds the
// exact entry (e.g. "WARDEN_RUNNER_TAG=123.4"). Zombies have none.
func hasEnvEntry(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(entry)
	for len(b) > 0 {
		kv := b
		if i := bytes.IndexByte(b, 0); i >= 0 {
			kv, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// groupAlive reports whether a live (non-zombie) process is in group pgid.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	procs, err := readProcs()
	if err != nil {
		return true // cannot tell: assume alive, the caller escalates by deadline
	}
	for _, pi := range procs {
		if pi.pgid == pgid && !pi.zombie() {
			return true
		}
	}
	return false
}

// setSubreaper makes this process the reaper of orphaned descendants.
func setSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
}

// zombieChildWaiting reports, without reaping, whether any child of this
// process is waitable (waitid P_ALL with WNOWAIT).
func zombieChildWaiting() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == int32(syscall.SIGCHLD)
}
