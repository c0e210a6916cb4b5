//go:build !e2e

package protocol

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// BenchmarkTUITeam: 50 TUI agents at warden's default 200×50, each fed a
// stream drawn like Claude Code (alternate screen, synchronized frames,
// words placed by cursor moves, truecolour, spinner titles, answers drawn
// half then whole and repainted ten times; 20 turns, tuiCorpus) in 4 KiB
// writes, round robin, with Quiet after every turn. Beside it, in the same
// run, the same streams through 50 ModeLines readers (what a plain agent's
// reader costs). Reported: CPU seconds per MB fed, and the heap and RSS each
// agent's reader holds once everything is drawn (all 50 alive, their
// scrolled-off rows kept; see teamCost).
//
// go test -run '^$' -bench TUITeam -benchtime 3x ./protocol/
func BenchmarkTUITeam(b *testing.B) {
	const agents = 50
	turns := tuiCorpus(200, 50)
	total := 0
	for _, t := range turns {
		total += len(t)
	}
	modes := []struct {
		name string
		mode Mode
	}{{"screen", ModeScreen}, {"lines", ModeLines}}
	type acc struct{ cpu, heap, rss, rssFreed float64 }
	got := map[Mode]*acc{ModeScreen: {}, ModeLines: {}}
	i := 0
	for b.Loop() {
		for k := range modes {
			m := modes[(i+k)%2]
			a := got[m.mode]
			r := feedTeam(b, m.mode, agents, turns)
			a.cpu += r.cpu
			a.heap += r.heap
			a.rss += r.rss
			a.rssFreed += r.rssFreed
		}
		i++
	}
	mb := float64(total*agents*i) / 1e6
	for _, m := range modes {
		a := got[m.mode]
		b.ReportMetric(a.cpu/mb, m.name+"-cpu-s/MB")
		b.ReportMetric(a.heap/float64(i)/agents/(1<<20), m.name+"-heap-MB/agent")
		b.ReportMetric(a.rss/float64(i)/agents/(1<<20), m.name+"-RSS-MB/agent")
		b.ReportMetric(a.rssFreed/float64(i)/agents/(1<<20), m.name+"-RSS-freed-MB/agent")
	}
	b.ReportMetric(float64(total)/1e6, "MB/agent")
}

// teamCost is what feedTeam measured: CPU seconds, and bytes held at the end
// (the differences from before the readers were made, all alive): live heap,
// RSS after a GC (what a running process holds: the runtime keeps freed
// memory for a while) and RSS once freed memory is returned to the OS.
type teamCost struct{ cpu, heap, rss, rssFreed float64 }

// feedTeam feeds every agent's stream to its own Reader.
func feedTeam(b *testing.B, mode Mode, agents int, turns [][]byte) teamCost {
	debug.FreeOSMemory()
	heap0, rss0 := heapInuse(), rssBytes()
	readers := make([]*Reader, agents)
	blocks := 0
	for k := range readers {
		readers[k] = NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: mode, Cols: 200, Rows: 50,
			OnBlock: func(Block) { blocks++ }, Reply: func([]byte) {}})
	}
	c0 := cpuSeconds()
	for _, data := range turns {
		for off := 0; off < len(data); off += 4096 {
			for _, r := range readers {
				_, _ = r.Write(data[off:min(off+4096, len(data))])
			}
		}
		for _, r := range readers {
			r.Quiet()
		}
	}
	cost := teamCost{cpu: cpuSeconds() - c0}
	runtime.GC()
	cost.heap, cost.rss = float64(heapInuse()-heap0), float64(rssBytes()-rss0)
	debug.FreeOSMemory()
	cost.rssFreed = float64(rssBytes() - rss0)
	for _, r := range readers {
		r.Flush()
	}
	if want := agents * len(turns); mode == ModeScreen && blocks != want {
		b.Fatalf("%d blocks, want %d", blocks, want)
	}
	runtime.KeepAlive(readers)
	return cost
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func heapInuse() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// rssBytes is this process's resident set (VmRSS).
func rssBytes() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range bytes.Split(b, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && string(k) == "VmRSS" {
			n, _ := strconv.ParseInt(string(bytes.Fields(v)[0]), 10, 64)
			return n << 10
		}
	}
	return 0
}
