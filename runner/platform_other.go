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

// ProcStat is one process's ids and start time (Linux only).
type ProcStat struct {
	Pid, Ppid, Pgid, Sid int
	Start                uint64
}

// Stat is unsupported here.
func Stat(int) (ProcStat, bool) { return ProcStat{}, false }

// Ancestry is unsupported here.
func Ancestry(int) []ProcStat { return nil }

// DescendsFrom is unsupported here: nothing is known to descend.
func DescendsFrom(int, ProcStat) bool { return false }

// Self is unsupported here.
func Self() ProcStat { return ProcStat{} }

// Owns is unsupported here: nothing is owned.
func (p *Process) Owns(int) bool { return false }

// CarriesTagOf is unsupported here.
func CarriesTagOf(int, int) bool { return false }
