//go:build e2e

package realclis

import (
	"sort"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
)

// BenchmarkRealCodexDialogToWaiting: the real Codex under warden, against
// the fake provider, whose first answer is a shell call that needs
// approval. From the moment the provider sent that call to warden's
// agent_waiting event (its timestamp), through Codex's app-server (the
// request itself) and without it (channel = "screen": whichever comes
// first of Codex's OSC 7501 status report, its window title and the
// dialog drawn on the screen, read after the profile's 300 ms settle). The provider's own
// share is the same on both sides; ms is the median over b.N runs.
func BenchmarkRealCodexDialogToWaiting(b *testing.B) {
	warden, err := buildWarden()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("WARDEN_BIN", warden)
	for _, c := range []dialogCLI{
		{name: "app-server", cli: "codex", channel: true},
		{name: "without-channel", cli: "codex"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for range b.N {
				took = append(took, dialogToWaiting(b, c))
			}
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms")
			b.ReportMetric(0, "ns/op")
		})
	}
	proctest.AssertNone(b)
}

// dialogToWaiting runs one team until its agent waits and returns how long
// after the tool call agent_waiting came.
func dialogToWaiting(b *testing.B, c dialogCLI) time.Duration {
	r, team, _, wait, stateDir := startDialogRun(b, c, dialogHeader("wait", "10m"))
	defer func() {
		team.Force()
		wait()
	}()
	var waiting map[string]any
	waitForD(b, "agent_waiting", 90*time.Second, func() bool {
		waiting = firstEvent(readEvents(b, stateDir), event.AgentWaiting)
		return waiting != nil
	})
	checkChannelWaiting(b, c, waiting)
	r.mu.Lock()
	defer r.mu.Unlock()
	return eventTime(b, waiting).Sub(r.asked)
}
