// Package tcppeer finds the process at the other end of a TCP connection
// accepted on this machine: the client's socket in /proc/net/tcp and
// /proc/net/tcp6 (its local address is the client's, its remote one the
// server's), then the process that holds that socket (a
// /proc/PID/fd/N -> socket:[INODE] link). The dashboard page judges the
// process it finds as the control socket judges its callers (issue 33: an
// agent that read the page's token must not answer a dialog with it).
//
// Only what this network namespace's tables hold can be found: a client
// on another machine (a phone over a VPN, a LAN) or in another network
// namespace has no socket here, and Peer.Local is false.
package tcppeer

import (
	"errors"
	"net"
)

// Peer is what was found of a connection's client.
type Peer struct {
	// Local: the client's socket is in this machine's (this network
	// namespace's) TCP tables.
	Local bool
	// UID owns the client's socket; Inode names it (0: no process holds it
	// any more — it was closed, and the kernel finishes it alone).
	UID   int
	Inode uint64
	// Pid holds the socket: a process of the caller's own user whose
	// descriptors could be read. 0 when none was found.
	Pid int
	// Hidden are the processes of the caller's user whose descriptors
	// could not be read (not dumpable: sshd, an agent that made itself so),
	// when no holder was found among the others: one of them holds it.
	Hidden []int
}

// ErrUnsupported: this platform has no /proc to find a peer in.
var ErrUnsupported = errors.New("finding a TCP peer's process needs Linux's /proc")

// Limits bound a search: the processes and the descriptors looked at.
const (
	maxProcs = 1 << 15
	maxFDs   = 1 << 20
)

// Find looks for the client's end of the connection client -> server
// (the server's view: its remote and local addresses) and, when it is on
// this machine and of uid, the process that holds it.
func Find(client, server *net.TCPAddr, uid int) (Peer, error) {
	return find(client, server, uid)
}

// OnThisMachine reports whether ip is loopback or one of this machine's
// interface addresses: a client there is a process here.
func OnThisMachine(ip net.IP) bool {
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
