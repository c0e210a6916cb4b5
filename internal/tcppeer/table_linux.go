package tcppeer

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// entry is one socket of /proc/net/tcp or tcp6.
type entry struct {
	local, remote *net.TCPAddr
	uid           int
	inode         uint64
}

// tables are this network namespace's TCP tables (the reading process's).
var tables = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// lookup finds the socket whose local address is client and remote one
// server, in either table (an IPv4 client of a page on [::] is in tcp, the
// page's own end in tcp6: addresses are compared as IPs). ok is false when
// neither holds it.
func lookup(client, server *net.TCPAddr) (entry, bool, error) {
	read := 0
	var lastErr error
	for _, path := range tables {
		e, ok, err := lookupIn(path, client, server)
		if err != nil {
			lastErr = err
			continue
		}
		read++
		if ok {
			return e, true, nil
		}
	}
	if read == 0 {
		return entry{}, false, lastErr
	}
	return entry{}, false, nil
}

func lookupIn(path string, client, server *net.TCPAddr) (entry, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return entry{}, false, fmt.Errorf("tcp peer: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		e, ok := parseEntry(sc.Text())
		if !ok || e.local.Port != client.Port || e.remote.Port != server.Port {
			continue
		}
		if e.local.IP.Equal(client.IP) && e.remote.IP.Equal(server.IP) {
			return e, true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return entry{}, false, fmt.Errorf("tcp peer: read %s: %w", path, err)
	}
	return entry{}, false, nil
}

// parseEntry parses "sl local rem st tx:rx tr:when retrnsmt uid timeout
// inode ...".
func parseEntry(line string) (entry, bool) {
	f := strings.Fields(line)
	if len(f) < 10 {
		return entry{}, false
	}
	local, ok1 := parseAddr(f[1])
	remote, ok2 := parseAddr(f[2])
	uid, err1 := strconv.Atoi(f[7])
	inode, err2 := strconv.ParseUint(f[9], 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return entry{}, false
	}
	return entry{local: local, remote: remote, uid: uid, inode: inode}, true
}

// parseAddr parses "0100007F:1F90": the address as the kernel prints it
// (each 32-bit word of the network-order bytes as a native integer, in
// hex), the port in hex.
func parseAddr(s string) (*net.TCPAddr, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok || (len(h) != 8 && len(h) != 32) {
		return nil, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, false
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, true
}
