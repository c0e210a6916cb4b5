//go:build e2e

package hookbus

import (
	"sort"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

// BenchmarkHookProcessToServer measures what a CLI's hook costs warden:
// from starting the `warden hook` process (this test binary in hook mode)
// to its message arriving on Messages(). Reports median and p99.
func BenchmarkHookProcessToServer(b *testing.B) {
	state := b.TempDir()
	s, err := Listen(testLogger(), socketOf(state))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	env := HookEnv{Agent: "w1", StateDir: state, Socket: s.Path()}
	payload := `{"hook_event_name":"Stop","last_assistant_message":"CHECKPOINT: T1\nStatus: implementing"}`
	var lat []time.Duration
	for b.Loop() {
		cmd := hookCmd(env, payload, profile.KindClaudeStop)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		select {
		case <-s.Messages():
			lat = append(lat, time.Since(start))
		case <-time.After(5 * time.Second):
			b.Fatal("no message")
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
