//go:build !linux

package runner

import "os/exec"

// Cgroup is a cgroup v2 directory a process starts in (Linux only).
type Cgroup struct{}

// OpenCgroup fails: cgroups are Linux's.
func OpenCgroup(path string) (*Cgroup, error) { return nil, errUnsupported }

// Path is "".
func (c *Cgroup) Path() string { return "" }

// Close does nothing.
func (c *Cgroup) Close() error { return nil }

func (c *Cgroup) apply(*exec.Cmd) {}
