//go:build !e2e

package signalfile

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
)

// BenchmarkInotifyLatency measures, per iteration, the time from the start of
// a plain write of the signal file to its delivery on C, through fsnotify
// (the poll is an hour, so it never helps). Target: ≤ 100 ms.
func BenchmarkInotifyLatency(b *testing.B) {
	flag := filepath.Join(b.TempDir(), "checkpoint-needed")
	w, err := New(hclog.NewNullLogger(), flag, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	measureLatency(b, w, flag, 5*time.Second)
}

// BenchmarkPollLatency measures the same through polling alone (fsnotify
// cannot start), every 1 s.
// Target: ≤ 2 s.
func BenchmarkPollLatency(b *testing.B) {
	flag := filepath.Join(b.TempDir(), "checkpoint-needed")
	w, err := newWatcher(hclog.NewNullLogger(), flag, time.Second, options{clock: clock.Real{}, newFS: failingFS})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	measureLatency(b, w, flag, 10*time.Second)
}

// measureLatency writes the file b.N times, each after removing the previous
// one and letting the watcher see it gone, and reports the median and p99 of
// write→C in milliseconds.
func measureLatency(b *testing.B, w *Watcher, flag string, limit time.Duration) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := os.WriteFile(flag, []byte("now\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		select {
		case <-w.C():
			lat = append(lat, time.Since(start))
		case <-time.After(limit):
			b.Fatalf("no signal within %s", limit)
		}
		b.StopTimer()
		if err := os.Remove(flag); err != nil {
			b.Fatal(err)
		}
		waitAbsent(w)
		b.StartTimer()
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(lat[(len(lat)*99)/100]), "p99-ms")
}

// waitAbsent lets the poll-only watcher see the removal, so that the next
// write is a new presence for it too (fsnotify sees REMOVE in order anyway),
// and then waits a random part of a poll so that writes fall at random
// phases of the poll.
func waitAbsent(w *Watcher) {
	if w.fs != nil {
		return
	}
	time.Sleep(w.poll + rand.N(w.poll))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
