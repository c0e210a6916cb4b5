package runner

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// TreeRSS is the resident memory, in bytes, of each root's process tree:
// the processes of its session and of its process group (an agent's pid is
// both ids) and their descendants by the parent links — so a child that
// called setsid counts while its parent lives — summed from each process's
// /proc/PID/statm (resident pages). A page two processes share (a forked
// child's, a shared library's) counts in each: the sum is an upper bound,
// never less than what the tree holds. One scan of /proc serves every root;
// a root with no live process has no entry. Zombies hold no memory.
func TreeRSS(roots []int) (map[int]int64, error) {
	procs, err := readProcs()
	if err != nil {
		return nil, fmt.Errorf("tree rss: %w", err)
	}
	children := make(map[int][]int, len(procs))
	byPid := make(map[int]procInfo, len(procs))
	for _, pi := range procs {
		byPid[pi.pid] = pi
		children[pi.ppid] = append(children[pi.ppid], pi.pid)
	}
	want := make(map[int]bool, len(roots))
	for _, r := range roots {
		want[r] = true
	}
	seeds := make(map[int][]int, len(roots))
	for _, pi := range procs {
		switch {
		case want[pi.pgid]:
			seeds[pi.pgid] = append(seeds[pi.pgid], pi.pid)
		case want[pi.sid]:
			seeds[pi.sid] = append(seeds[pi.sid], pi.pid)
		}
	}
	page := int64(os.Getpagesize())
	buf := make([]byte, 256)
	out := make(map[int]int64, len(roots))
	for root, queue := range seeds {
		seen := map[int]bool{}
		var sum int64
		live := false
		for len(queue) > 0 {
			pid := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			if seen[pid] {
				continue
			}
			seen[pid] = true
			queue = append(queue, children[pid]...)
			if byPid[pid].zombie() {
				continue
			}
			if pages, ok := residentPages(pid, buf); ok {
				sum += pages * page
				live = true
			}
		}
		if live {
			out[root] = sum
		}
	}
	return out, nil
}

// residentPages reads the second field of /proc/PID/statm; ok is false
// when the process is gone.
func residentPages(pid int, buf []byte) (int64, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/statm", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, err := syscall.Read(fd, buf)
	_ = syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	f := bytes.Fields(buf[:n])
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	return pages, err == nil
}
