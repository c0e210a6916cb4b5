//go:build e2e

package supervisor

import (
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
)

// A checkpoint that cannot be saved (a full disk: ENOSPC) does not count:
// a WARNING line says so on warden's output, checkpoint_rejected names the
// reason, no checkpoint_received, and the timers run on (the request times
// out). Once the disk has room, the same answer given again is recorded.
func TestUnsavedCheckpointDoesNotCount(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "300ms"
checkpoint_timeout = "1s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w", mode: "answer:same"})
	var full atomic.Bool
	full.Store(true)
	team, out, wait := startTeamWith(t, cfg, func(team *Team) {
		team.store.FailWrites(func(string) error {
			if full.Load() {
				return syscall.ENOSPC
			}
			return nil
		})
	})
	waitFor(t, "an unsaved answer and the request timing out", func() bool {
		evs := eventsOf(t, cfg)
		return countEvents(evs, event.CheckpointRejected, "w") >= 1 && countEvents(evs, event.CheckpointTimeout, "w") >= 1
	})
	evs := eventsOf(t, cfg)
	if n := countEvents(evs, event.CheckpointReceived, "w"); n != 0 {
		t.Fatalf("%d checkpoint_received while no record could be saved", n)
	}
	for _, e := range evs {
		if e["event"] == event.CheckpointRejected {
			if r, _ := e["reason"].(string); !strings.Contains(r, "not saved") || !strings.Contains(r, "no space left on device") {
				t.Errorf("checkpoint_rejected reason %q, want not saved: no space left", r)
			}
		}
	}
	if s := out.String(); !strings.Contains(s, "WARNING: checkpoint of w on T1 not saved (write checkpoint: no space left on device): it does not count") {
		t.Errorf("no WARNING line for the unsaved checkpoint:\n%s", s)
	}
	full.Store(false)
	waitFor(t, "the same answer recorded once the disk has room", func() bool {
		return countEvents(eventsOf(t, cfg), event.CheckpointReceived, "w") >= 1
	})
	team.Stop(true)
	wait()
}
