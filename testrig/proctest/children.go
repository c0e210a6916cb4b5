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
