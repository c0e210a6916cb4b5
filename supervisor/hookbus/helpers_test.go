package hookbus

import (
	"net"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

func netListenUnix(p string) (net.Listener, error) { return net.Listen("unix", p) }
