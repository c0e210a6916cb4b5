//go:build e2e

package asciicast

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/runner"
)

// BenchmarkRelayRecorded: a fake agent floods 100 MiB through the runner to
// its log, with a line counter as its output, and once more with the output also recorded to a cast file (no cap): the
// recording's added CPU per GB relayed.
func BenchmarkRelayRecorded(b *testing.B) {
	for _, recorded := range []bool{false, true} {
		b.Run(fmt.Sprintf("recorded=%v", recorded), func(b *testing.B) {
			defer proctest.AssertNone(b)
			dir := b.TempDir()
			var total int64
			cpu0 := cpuSeconds()
			for i := 0; b.Loop(); i++ {
				var out io.Writer = &lineCounter{}
				var w *Writer
				if recorded {
					var err error
					w, err = Create(testLog, filepath.Join(dir, fmt.Sprintf("a-%d.cast", i)), Options{Cols: 200, Rows: 50})
					if err != nil {
						b.Fatal(err)
					}
					out = io.MultiWriter(out, w)
				}
				p, err := runner.Start(testLog, runner.Config{Name: "flood", Argv: fakeagent.Command("flood:100"),
					Env: fakeagent.Env("flood:100"), LogPath: filepath.Join(dir, "a.log"), Output: out})
				if err != nil {
					b.Fatal(err)
				}
				if exit := p.Wait(); !exit.Success() {
					b.Fatalf("exit %v", exit)
				}
				if w != nil {
					w.Close()
				}
				total += 100 << 20
				b.SetBytes(100 << 20)
				b.StopTimer()
				files, _ := filepath.Glob(filepath.Join(dir, "a*"))
				for _, f := range files {
					os.Remove(f)
				}
				b.StartTimer()
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(total)*1e9, "cpu-s/GB")
		})
	}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// lineCounter stands for the output's other readers: it counts lines.
type lineCounter struct{ n int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}
