package runner

import (
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// Cgroup is a cgroup v2 directory a process starts in. The kernel places
// the child there as it is cloned (clone3's CLONE_INTO_CGROUP, Linux 5.7;
// Go's SysProcAttr.UseCgroupFD), before it runs an instruction of its own:
// nothing it starts can be outside the group, and no other cgroup is ever
// charged for it. The caller makes the directory (and its limits) and
// removes it; the runner only starts in it.
type Cgroup struct {
	path string
	fd   int
}

// OpenCgroup opens the cgroup v2 directory at path for starting processes
// in it. Close it once the process has started (or after it ended).
func OpenCgroup(path string) (*Cgroup, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open cgroup %s: %w", path, err)
	}
	return &Cgroup{path: path, fd: fd}, nil
}

// Path is the cgroup's directory.
func (c *Cgroup) Path() string { return c.path }

// Close releases the directory's descriptor; the cgroup stays.
func (c *Cgroup) Close() error {
	if c == nil || c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	if err != nil {
		return fmt.Errorf("close cgroup %s: %w", c.path, err)
	}
	return nil
}

// Apply makes cmd, prepared and not started, start in the cgroup (nil:
// where its starter is): how warden's holder starts an agent in its box.
func (c *Cgroup) Apply(cmd *exec.Cmd) { c.apply(cmd) }

// apply makes cmd start in the cgroup (nil: where warden is).
func (c *Cgroup) apply(cmd *exec.Cmd) {
	if c == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = c.fd
}
