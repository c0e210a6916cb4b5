//go:build !e2e && linux

package tcppeer

import (
	"net"
	"os"
	"testing"
)

// pair is a real connection to a listener on network/addr: the server's
// end (whose remote and local addresses Find takes) and the client's.
func pair(t *testing.T, network, addr, dial string) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("listen %s %s: %v", network, addr, err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	client, err = net.Dial("tcp", net.JoinHostPort(dial, port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return server, client
}

// TestFindsItsOwnLoopbackClient: a loopback connection in this process is
// found in /proc/net/tcp{,6}, and its holder is this process — over IPv4,
// IPv6, and an IPv4 client of a listener on every address (its end in tcp,
// the server's in tcp6).
func TestFindsItsOwnLoopbackClient(t *testing.T) {
	for _, c := range []struct{ name, network, addr, dial string }{
		{"ipv4", "tcp4", "127.0.0.1:0", "127.0.0.1"},
		{"ipv6", "tcp6", "[::1]:0", "::1"},
		{"ipv4 to [::]", "tcp", "[::]:0", "127.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			server, _ := pair(t, c.network, c.addr, c.dial)
			p, err := Find(server.RemoteAddr().(*net.TCPAddr), server.LocalAddr().(*net.TCPAddr), os.Geteuid())
			if err != nil {
				t.Fatal(err)
			}
			if !p.Local || p.Inode == 0 || p.UID != os.Geteuid() {
				t.Fatalf("the client's socket was not found as this user's: %+v", p)
			}
			if p.Pid != os.Getpid() {
				t.Fatalf("holder: got pid %d, want this process %d (%+v)", p.Pid, os.Getpid(), p)
			}
		})
	}
}

// TestAnotherUsersSocketIsNotSearched: a socket of another uid is found in
// the table, but no process is looked for.
func TestAnotherUsersSocketIsNotSearched(t *testing.T) {
	server, _ := pair(t, "tcp4", "127.0.0.1:0", "127.0.0.1")
	p, err := Find(server.RemoteAddr().(*net.TCPAddr), server.LocalAddr().(*net.TCPAddr), os.Geteuid()+12345)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Local || p.Pid != 0 || len(p.Hidden) != 0 {
		t.Fatalf("got %+v, want a local socket and no holder looked for", p)
	}
}

// TestAClosedClientHasNoHolder: a client that closed its end before it was
// looked for holds no socket: not found, or found with inode 0 (the kernel
// finishing it alone) — never a process.
func TestAClosedClientHasNoHolder(t *testing.T) {
	server, client := pair(t, "tcp4", "127.0.0.1:0", "127.0.0.1")
	client.Close()
	p, err := Find(server.RemoteAddr().(*net.TCPAddr), server.LocalAddr().(*net.TCPAddr), os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	if p.Pid != 0 || (p.Local && p.Inode != 0) {
		t.Fatalf("a closed client was found held: %+v", p)
	}
}

// TestARemoteAddressIsNotLocal: an address no socket here has is not found.
func TestARemoteAddressIsNotLocal(t *testing.T) {
	p, err := Find(&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 40000}, &net.TCPAddr{IP: net.ParseIP("192.0.2.8"), Port: 8080}, os.Geteuid())
	if err != nil || p.Local {
		t.Fatalf("got %+v, %v: want nothing found", p, err)
	}
}

func TestParseAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:0016": "127.0.0.1:22",
	} {
		a, ok := parseAddr(in)
		if !ok || a.String() != want {
			t.Errorf("parseAddr(%q) = %v, %v; want %s", in, a, ok, want)
		}
	}
}
