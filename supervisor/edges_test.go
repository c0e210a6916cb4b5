//go:build e2e

package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/unixsock"
)

// An edge that dies while serving ends its Run with the error it died of,
// taken down; one taken down (its context ended) returns nil, even when it
// dies as it goes.
func TestEdgeRunEndsWithItsFailure(t *testing.T) {
	run := func(e *Edge, ctx context.Context) (error, bool) {
		c := make(chan error, 1)
		go func() { c <- e.Run(ctx) }()
		select {
		case err := <-c:
			return err, true
		case <-time.After(5 * time.Second):
			return nil, false
		}
	}

	stops := 0
	failed := make(chan error, 1)
	failed <- errors.New("test socket: accept: gone")
	if err, ok := run(edge("test socket", func() { stops++ }, failed), context.Background()); !ok || err == nil ||
		err.Error() != "test socket: accept: gone" || stops != 1 {
		t.Errorf("a dying edge: %v (returned %v), taken down %d times", err, ok, stops)
	}

	stops = 0
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err, ok := run(edge("taken down", func() { stops++ }, make(chan error)), ctx); !ok || err != nil || stops != 1 {
		t.Errorf("an edge taken down: %v (returned %v), taken down %d times", err, ok, stops)
	}
	late := make(chan error, 1)
	late <- errors.New("closing")
	if err, ok := run(edge("late", func() {}, late), ctx); !ok || err != nil {
		t.Errorf("a failure while being taken down: %v (returned %v)", err, ok)
	}
}

// A team's edge that cannot be set up — here its control socket, on which
// another process listens — ends its Run at once with why, instead of the
// run going on without it.
func TestAnEdgeThatCannotBeSetUpFails(t *testing.T) {
	cfg := writeTeam(t, "", fakeAgent{name: "w", mode: "idle"})
	team, err := New(hclog.NewNullLogger(), cfg, clock.Real{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer team.Close()
	ln, err := unixsock.Listen(team.dir.ControlSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	err = team.ControlServer().Run(context.Background())
	if !errors.Is(err, unixsock.ErrInUse) || !strings.HasPrefix(err.Error(), "control socket: ") {
		t.Errorf("the control socket's edge, another process listening there: %v", err)
	}
}
