//go:build !e2e

package control

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/state"
)

// Watchers (the page's viewers, however many pages) have a limit of their
// own: 100 of them never take the slots `warden ps` and `warden stop` use,
// the ones past the limit are told why, and a watcher that goes frees its
// slot (issue 22, item 9: 64 viewers locked ps and stop out).
func TestWatchersNeverTakeOperatorsSlots(t *testing.T) {
	root := t.TempDir()
	f := &fakeTeam{stopped: make(chan bool, 1)}
	srv, err := Listen(hclog.NewNullLogger(), state.NewLayout(root).ControlSocket(), f, NewHub(10))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(root)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var watching []context.CancelFunc
	refused := 0
	for range 100 {
		wctx, wcancel := context.WithCancel(ctx)
		if _, err := c.Watch(wctx, true); err != nil {
			wcancel()
			if !strings.Contains(err.Error(), "watchers") {
				t.Fatalf("a watcher past the limit was refused with %q: want it to say why", err)
			}
			refused++
			continue
		}
		watching = append(watching, wcancel)
	}
	if len(watching) != maxWatchers || refused != 100-maxWatchers {
		t.Errorf("%d watchers served, %d refused: want %d served", len(watching), refused, maxWatchers)
	}
	// Every operator slot is still there: as many ps at once as the limit.
	errs := make(chan error, maxConns)
	for range maxConns {
		go func() { _, err := c.PS(); errs <- err }()
	}
	for range maxConns {
		if err := <-errs; err != nil {
			t.Errorf("warden ps with %d watchers on: %v", len(watching), err)
		}
	}
	// A watcher that goes frees its slot for the next.
	watching[0]()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := c.Watch(ctx, false); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("a watcher's slot was not freed when it went: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	done := make(chan error, 1)
	go func() { done <- c.Stop(context.Background(), false, true) }()
	select {
	case <-f.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("warden stop did not reach the team with the watchers on")
	}
	srv.Close()
	if err := <-done; err != nil {
		t.Errorf("stop: %v", err)
	}
}
