package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Children lists pid's children: those of each of its threads
// (/proc/PID/task/TID/children names only the children a thread forked,
// and a Go program forks from whichever thread runs).
func Children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(w); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Zombies lists the zombies that are this process's children or in one of
// groups (process groups or sessions, by their leader's pid): what a test
// that waited for every process it started finds left unreaped by those
// groups' parents.
func Zombies(groups map[int]bool) []Proc {
	self := os.Getpid()
	var out []Proc
	for _, pid := range pids() {
		p, ok := stat(pid)
		if ok && p.State == 'Z' && (p.Ppid == self || groups[p.Pgid] || groups[p.Sid]) {
			out = append(out, p)
		}
	}
	return out
}
