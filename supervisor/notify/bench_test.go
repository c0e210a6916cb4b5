//go:build e2e

package notify

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// BenchmarkEventToStart measures what issue 9 bounds at 100 ms: from Notify
// to the notification command's first instruction, one event at a time. The
// command records its start time itself: the test binary in a helper mode
// (time.Now first thing in TestMain, after the Go runtime's start-up), or
// bash reading $EPOCHREALTIME (microseconds) before anything else.
func BenchmarkEventToStart(b *testing.B) {
	b.Run("go-helper", func(b *testing.B) {
		dir := b.TempDir()
		benchStart(b, dir, helperCommand(b, "stamp", dir))
	})
	b.Run("bash", func(b *testing.B) {
		dir := b.TempDir()
		script := `t=$EPOCHREALTIME; printf '{"start":%s000}' "${t/./}" > "$0/$WARDEN_TASK.json"`
		benchStart(b, dir, []string{"bash", "-c", script, dir})
	})
}

func benchStart(b *testing.B, dir string, command []string) {
	r := rule([]string{"*"}, command)
	r.MinInterval = 0
	h := newHarness(b, []config.Notify{r}, clock.Real{}, defaultWorkers, defaultQueue)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		task := fmt.Sprintf("B%d", i)
		ev := event("agent_waiting", "w1", task)
		sent := time.Now()
		h.n.Notify(ev)
		if res := h.next(b); res.err != nil {
			b.Fatalf("run: %v; log:\n%s", res.err, h.log)
		}
		lat = append(lat, time.Duration(readRecord(b, dir, task).Start-sent.UnixNano()))
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}
