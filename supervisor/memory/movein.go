package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// MoveInto moves the box a process lives in — every process of its cgroup
// v2 group — into the group at dir, when that box is one a warden made
// (mount/warden.PID/NAME): a session taken back from the holder
// (holder = true) then lives on in the box of the warden that took it
// back, under its memory_max and killed whole with it at a stop, escapees
// that shed their tag included, instead of in the dead warden's box,
// which nothing ends. It returns how many processes moved: none when the
// process is in dir already or in no warden's box.
func MoveInto(dir string, pid int) (int, error) {
	mount, err := cgroup2Mount()
	if err != nil {
		return 0, nil // no cgroup v2 here: no box to move
	}
	rel, err := cgroupOf(strconv.Itoa(pid))
	if err != nil {
		return 0, err
	}
	from := filepath.Join(mount, rel)
	if from == filepath.Clean(dir) || !strings.HasPrefix(filepath.Base(filepath.Dir(from)), "warden.") ||
		filepath.Dir(filepath.Dir(from)) != filepath.Clean(mount) {
		return 0, nil
	}
	moved := 0
	for range 5 { // a process forked meanwhile lands in from: read it again
		pids := words(filepath.Join(from, "cgroup.procs"))
		if len(pids) == 0 {
			break
		}
		for _, p := range pids {
			err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(p), 0)
			switch {
			case err == nil:
				moved++
			case !errors.Is(err, unix.ESRCH): // one that ended meanwhile needs no move
				return moved, fmt.Errorf("move pid %s from %s into %s: %w", p, from, dir, err)
			}
		}
	}
	if left := words(filepath.Join(from, "cgroup.procs")); len(left) > 0 {
		return moved, fmt.Errorf("%d processes still in %s after moving %d", len(left), from, moved)
	}
	// The dead warden's box is empty now: gone, and its base with its last box.
	if unix.Rmdir(from) == nil {
		_ = unix.Rmdir(filepath.Dir(from))
	}
	return moved, nil
}
