package hookbus

import (
	"net"
	"strconv"

	"github.com/wardenhq/warden/supervisor/state"
)

func itoa(i int) string { return strconv.Itoa(i) }

func netListenUnix(p string) (net.Listener, error) { return net.Listen("unix", p) }

// socketOf is the hook socket of the state dir at dir.
func socketOf(dir string) string { return state.NewLayout(dir).HookSocket() }

// spoolOf is an agent's spool file in the state dir at dir.
func spoolOf(dir, agent string) (string, error) { return state.NewLayout(dir).HookSpool(agent) }
