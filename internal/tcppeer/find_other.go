//go:build !linux

package tcppeer

import "net"

func find(*net.TCPAddr, *net.TCPAddr, int) (Peer, error) { return Peer{}, ErrUnsupported }
