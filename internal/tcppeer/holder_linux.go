package tcppeer

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func find(client, server *net.TCPAddr, uid int) (Peer, error) {
	e, ok, err := lookup(client, server)
	if err != nil || !ok {
		return Peer{}, err
	}
	p := Peer{Local: true, UID: e.uid, Inode: e.inode}
	if e.inode == 0 || e.uid != uid {
		return p, nil
	}
	p.Pid, p.Hidden, err = holder(e.inode, uid)
	return p, err
}

// holder scans the processes of uid for a descriptor that is the socket
// inode: its pid, or (none found) the processes of uid whose descriptors
// could not be read. At most maxProcs processes and maxFDs descriptors are
// looked at.
func holder(inode uint64, uid int) (int, []int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return 0, nil, fmt.Errorf("tcp peer: %w", err)
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return 0, nil, fmt.Errorf("tcp peer: read /proc: %w", err)
	}
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	var hidden []int
	procs, fds := 0, 0
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || !ofUser(pid, uid) {
			continue
		}
		if procs++; procs > maxProcs || fds > maxFDs {
			return 0, hidden, fmt.Errorf("tcp peer: gave up after %d processes and %d descriptors", procs-1, fds)
		}
		n, found, err := holds(pid, want)
		fds += n
		switch {
		case found:
			return pid, nil, nil
		case errors.Is(err, fs.ErrPermission):
			hidden = append(hidden, pid)
		}
	}
	return 0, hidden, nil
}

// holds reports whether one of pid's descriptors links to want, and how
// many it looked at.
func holds(pid int, want string) (int, bool, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(dir)
	if err != nil {
		return 0, false, err
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return 0, false, err
	}
	for _, n := range names {
		if l, err := os.Readlink(dir + "/" + n); err == nil && l == want {
			return len(names), true, nil
		}
	}
	return len(names), false, nil
}

// ofUser reports whether pid runs as uid (its effective uid). /proc/PID
// belongs to the process's user, or to root when the process is not
// dumpable: then its status says.
func ofUser(pid, uid int) bool {
	fi, err := os.Stat("/proc/" + strconv.Itoa(pid))
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	if int(st.Uid) == uid {
		return true
	}
	return st.Uid == 0 && statusUID(pid) == uid
}

// statusUID is pid's effective uid from /proc/PID/status, -1 unknown.
func statusUID(pid int) int {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				if u, err := strconv.Atoi(f[1]); err == nil {
					return u
				}
			}
			return -1
		}
	}
	return -1
}
