//go:build !e2e

package control

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/state"
)

// gateTeam refuses the pids of agent, admits the rest (its caller too).
type gateTeam struct {
	fakeTeam
	agent map[int]bool
}

func (g *gateTeam) Admit(pid int) error {
	if g.agent[pid] {
		return fmt.Errorf("pid %d is inside agent evil's process tree", pid)
	}
	return nil
}

// A request made for other processes (the page's client, Client.For) is
// refused when the team refuses one of them, with a *RefusedError naming
// why; made for a person's process, or for none, it is served.
func TestRequestMadeForAnAgentsProcessIsRefused(t *testing.T) {
	root := t.TempDir()
	team := &gateTeam{fakeTeam: fakeTeam{stopped: make(chan bool, 1)}, agent: map[int]bool{4242: true}}
	srv, err := Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), team, NewHub(10))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(root)
	if _, err := c.PS(); err != nil {
		t.Fatalf("ps for nobody: %v", err)
	}
	if _, err := c.For(os.Getpid()).PS(); err != nil {
		t.Fatalf("ps for a person's process: %v", err)
	}
	_, err = c.For(os.Getpid(), 4242).PS()
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "refused: the page's client pid 4242 is inside agent evil's") {
		t.Fatalf("ps for an agent's process: %v, want a *RefusedError naming it", err)
	}
	if _, err := c.PS(); err != nil {
		t.Fatalf("the client itself is unchanged by For: %v", err)
	}
}
