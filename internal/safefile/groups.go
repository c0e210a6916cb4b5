package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// getgroups returns this process's groups: its effective and real group
// and its supplementary groups (a container's fsGroup is one). Tests play
// others.
var getgroups = func() []int {
	gs, _ := os.Getgroups()
	return append(gs, os.Getegid(), os.Getgid())
}

// PretendGroups makes the checks take gids as this process's groups, for
// tests that cannot chgrp to a group they are not in as non-root; it
// returns the function that undoes it.
func PretendGroups(gids []int) (restore func()) {
	old := getgroups
	getgroups = func() []int { return gids }
	return func() { getgroups = old }
}

// writableByOthers says who besides this user may write to the directory
// fi describes, or "" when no one may. Others may write to it through the
// other-write bit, or through the group-write bit when its group is not one
// of this process's groups; a sticky directory (such as /tmp) is shared by
// design. A group of this process is trusted as this user is: it is how a
// scheduler hands a volume to a job (Kubernetes' fsGroup makes every
// directory of the volume g+rwx and setgid, with the pod's own group).
func writableByOthers(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m&fs.ModeSticky != 0:
		return fmt.Sprintf("mode %v: sticky, a shared directory", m)
	case m&0o002 != 0:
		return fmt.Sprintf("mode %v: anyone may write to it", m)
	case m&0o020 == 0:
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("mode %v: its group may write to it", m)
	}
	if slices.Contains(getgroups(), int(st.Gid)) {
		return ""
	}
	return fmt.Sprintf("mode %v: group %d may write to it and is not one of your groups", m, st.Gid)
}

// MyGroup reports whether the group of fi is one of this process's groups
// (a container's fsGroup is one): a file of that group others of it may
// read are processes of this pod, as trusted as this user.
func MyGroup(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && slices.Contains(getgroups(), int(st.Gid))
}
