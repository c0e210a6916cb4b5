package box

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// readOnly makes the directory p and everything under it read-only in
// this mount namespace, but the holes: a bind of p on itself (with the
// mounts under it), a bind of each hole inside p on itself, then every
// mount at or under p that is not at or under a hole remounted read-only
// with the flags it has (the kernel refuses to clear a flag it locked in a
// user namespace: nosuid, nodev, noexec, the atime ones, read from statfs).
// The holes stay as they were: writable where they were. A hole outside p,
// or p itself, is no hole; a p or a hole that is not there is left. The
// kernel decides on the directory's mount, not its name: a file replaced
// by a rename (warden writes so) is as read-only as the one it replaced.
func readOnly(p string, holes []string) error {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, os.ErrNotExist) || p == "" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read-only %s: %w", p, err)
	}
	if err := unix.Mount(real, real, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", real, err)
	}
	var open []string
	for _, h := range holes {
		h, err := filepath.EvalSymlinks(h)
		if err != nil || !strings.HasPrefix(h, real+"/") || under(h, open) {
			continue // not there, or not inside p, or inside a hole already
		}
		if err := unix.Mount(h, h, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("keep %s writable: %w", h, err)
		}
		open = append(open, h)
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("read-only %s: %w", real, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		m := unescapeMount(f[4])
		if !under(m, []string{real}) || under(m, open) {
			continue
		}
		if err := remountReadOnly(m); err != nil {
			return err
		}
	}
	return nil
}

// under says whether p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") || d == "/" {
			return true
		}
	}
	return false
}

// remountReadOnly makes the mount at m read-only, keeping its flags.
func remountReadOnly(m string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(m, &st); err != nil {
		return nil // gone, or not ours to see
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, k := range keptFlags {
		if st.Flags&k.st != 0 {
			flags |= k.ms
		}
	}
	if err := unix.Mount("", m, "", flags, ""); err != nil {
		return fmt.Errorf("read-only %s: %w", m, err)
	}
	return nil
}

// keptFlags are the mount flags a remount keeps (the kernel refuses to
// clear those it locked), as statfs names them and as mount takes them.
var keptFlags = []struct {
	st int64
	ms uintptr
}{
	{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
	{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				out.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		out.WriteByte(s[i])
	}
	return out.String()
}
