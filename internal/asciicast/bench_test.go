//go:build !e2e

package asciicast

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// BenchmarkWriter: the recording's own cost per byte of output, encoded
// into io.Discard so that the disk does not drown it. "tui" is a real
// Claude Code stream (escape sequences, box drawing, UTF-8) in 4 KiB reads,
// "text" the flood agent's ASCII lines in 32 KiB reads (the runner's read
// buffer), "binary" random bytes (mostly invalid UTF-8, the worst case).
func BenchmarkWriter(b *testing.B) {
	tui, err := os.ReadFile(cliStreams[0])
	if err != nil {
		b.Fatal(err)
	}
	random := make([]byte, 32<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		name  string
		data  []byte
		chunk int
	}{
		{"tui", tui, 4 << 10},
		{"text", bytes.Repeat(fakeagent.FloodLine, 512), 32 << 10},
		{"binary", random, 32 << 10},
	} {
		b.Run(c.name, func(b *testing.B) {
			w, err := NewWriter(testLog, io.Discard, Options{Cols: 200, Rows: 50})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			var chunks [][]byte
			for d := c.data; len(d) > 0; d = d[min(c.chunk, len(d)):] {
				chunks = append(chunks, d[:min(c.chunk, len(d))])
			}
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				for _, ch := range chunks {
					w.Write(ch)
				}
			}
			b.ReportMetric(float64(w.Size())/float64(b.N)/float64(len(c.data)), "cast-bytes/byte")
		})
	}
}
