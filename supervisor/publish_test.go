//go:build e2e

package supervisor

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// countingWriter counts the dashboards written to it.
type countingWriter struct {
	mu     sync.Mutex
	prints int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.prints += strings.Count(string(p), "agents active")
	return len(p), nil
}

func (w *countingWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.prints
}

// The dashboard (stdout not a terminal) is printed once something changed,
// at most every interval, and not while nothing changes: an idle team is
// not woken for it.
func TestDashboardOnlyAfterChanges(t *testing.T) {
	cfg := writeTeam(t, "", fakeAgent{name: "a", mode: "lines:1", restart: "never"})
	out := &countingWriter{}
	team, err := New(testLogger(t), cfg, clock.Real{}, out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = team.events.Close()
		team.dir.Unlock()
	}()
	team.started.Store(true) // as Run does: publishing writes from then on
	const every = 40 * time.Millisecond
	stop := team.printDashboard(every)
	defer stop()

	time.Sleep(5 * every)
	if n := out.count(); n != 0 {
		t.Fatalf("%d dashboards printed with nothing changed", n)
	}
	team.publish()
	team.publish()
	deadline := time.Now().Add(5 * time.Second)
	for out.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(5 * every)
	after := out.count()
	if after < 1 || after > 2 {
		t.Fatalf("%d dashboards printed after two changes, want 1 or 2", after)
	}
	time.Sleep(10 * every)
	if n := out.count(); n != after {
		t.Fatalf("%d dashboards printed, %d of them with nothing changed", n, n-after)
	}
	team.publish()
	time.Sleep(5 * every)
	if n := out.count(); n != after+1 {
		t.Fatalf("%d dashboards printed after a third change, want %d", n, after+1)
	}
}
