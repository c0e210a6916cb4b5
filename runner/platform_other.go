//go:build !linux

package runner

import (
	"errors"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// The runner is Linux-first: the reaper (SIGCHLD + wait4 per pid, child
// subreaper) and the sweeps (/proc) have no port yet. Start fails cleanly.

var errUnsupported = errors.New("runner: only Linux is supported")

type procInfo struct {
	pid, ppid, pgid, sid int
	state                byte
}

func (pi procInfo) zombie() bool { return pi.state == 'Z' }

func startRegistered(hclog.Logger, *Process, func() (int, error)) error { return errUnsupported }

func readStat(int, []byte) (procInfo, bool) { return procInfo{}, false }

func (p *Process) sweep() ([]procInfo, error) { return nil, errUnsupported }

func groupAlive(pgid int) bool { return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }

func theReaperForget(*Process) {}

func reaperChanged() <-chan struct{} { return make(chan struct{}) }
