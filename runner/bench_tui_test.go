//go:build e2e

package runner

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
)

// BenchmarkTUITeam: 50 fake TUI agents (fakeagent tui-answer: alternate
// screen, synchronized frames, a composer box, a spinner title, words placed
// by cursor moves, each answer drawn half then whole and repainted ten
// times) at warden's default 200×50, each asked for 10 checkpoints in turn,
// every answer read off its screen by a ModeScreen protocol.Reader (Quiet
// every 20 ms, as a settle would). Beside it, interleaved, the same team
// relayed to logs with no reader: the difference is the emulator's cost.
// Reported: this process's CPU per MB relayed, and its RSS per agent once
// every answer is read (all 50 alive, after a GC; the runtime keeps freed
// memory, so this is what a running warden holds).
//
// go test -tags e2e -run '^$' -bench TUITeam -benchtime 1x ./runner/
func BenchmarkTUITeam(b *testing.B) {
	const agents, asks = 50, 10
	defer proctest.AssertNone(b)
	dir := benchDir(b)
	var screen, logOnly pair
	var rss, rssLog float64
	i := 0
	for b.Loop() {
		for k := range 2 {
			withScreen := (i+k)%2 == 0
			acc, rssAcc := &screen, &rss
			if !withScreen {
				acc, rssAcc = &logOnly, &rssLog
			}
			acc.measure(func() int64 {
				n, perAgent := runTUITeam(b, dir, agents, asks, withScreen)
				*rssAcc += perAgent
				return n
			})
		}
		i++
	}
	b.ReportMetric(screen.cpu/float64(screen.bytes)*1e6, "cpu-s/MB")
	b.ReportMetric(logOnly.cpu/float64(logOnly.bytes)*1e6, "log-only-cpu-s/MB")
	b.ReportMetric(rss/float64(i)/(1<<20), "RSS-MB/agent")
	b.ReportMetric(rssLog/float64(i)/(1<<20), "log-only-RSS-MB/agent")
	b.ReportMetric(float64(screen.bytes)/float64(i)/agents/1e6, "MB/agent")
}

// runTUITeam runs the team until every agent answered every request, and
// returns the bytes relayed and the RSS per agent then.
func runTUITeam(b *testing.B, dir string, agents, asks int, withScreen bool) (int64, float64) {
	debug.FreeOSMemory()
	rss0 := selfStatus("VmRSS")
	procs := make([]*Process, agents)
	var wg sync.WaitGroup
	var answered atomic.Int64
	for a := range procs {
		cfg := fakeConfig("tui-answer")
		cfg.LogPath = filepath.Join(dir, fmt.Sprintf("tui-%d.log", a))
		ready := make(chan struct{})
		var r *protocol.Reader
		blocks := make(chan struct{}, asks)
		erases := &eraseCounter{}
		cfg.Output = erases
		if withScreen {
			r = protocol.NewReader(hclog.NewNullLogger(), protocol.ReaderOptions{Mode: protocol.ModeScreen,
				Rows: DefaultRows, Cols: DefaultCols, OnBlock: func(protocol.Block) { blocks <- struct{}{} },
				Reply: func(reply []byte) { <-ready; _, _ = procs[a].Write(reply) }})
			cfg.Output = r
		}
		p, err := Start(testLogger, cfg)
		if err != nil {
			b.Fatal(err)
		}
		procs[a] = p
		close(ready)
		wg.Go(func() {
			for n := range asks {
				ask := protocol.Request(fmt.Sprintf("T%d", n))
				if r != nil {
					r.Typed(ask)
				}
				_, _ = p.Write([]byte(ask + "\r"))
				if !awaitAnswer(r, blocks, erases, n) {
					b.Errorf("agent %d: no answer to request %d", a, n)
					return
				}
				answered.Add(1)
			}
		})
	}
	wg.Wait()
	runtime.GC()
	perAgent := float64(selfStatus("VmRSS")-rss0) * 1024 / float64(agents)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var total int64
	for a, p := range procs {
		p.Stop(ctx)
		total += logSize(b, filepath.Join(dir, fmt.Sprintf("tui-%d.log", a)))
	}
	return total, perAgent
}

// awaitAnswer waits for the agent's n-th answer (from 0): read off the
// screen (Quiet every 20 ms) or, without a reader, drawn to the end (the ten
// repaints that end an answer each start with an erase).
func awaitAnswer(r *protocol.Reader, blocks <-chan struct{}, erases *eraseCounter, n int) bool {
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-blocks:
			return true
		case <-deadline:
			return false
		case <-time.After(20 * time.Millisecond):
			if r != nil {
				r.Quiet()
			} else if erases.n.Load() >= int64(1+10*(n+1)) {
				return true
			}
		}
	}
}

// eraseCounter is an Output that counts erase-display sequences (CSI 2 J),
// also when one is split across writes.
type eraseCounter struct {
	n    atomic.Int64
	tail []byte
}

func (e *eraseCounter) Write(b []byte) (int, error) {
	const seq = "\x1b[2J"
	buf := append(e.tail, b...)
	e.n.Add(int64(bytes.Count(buf, []byte(seq))))
	keep := min(len(buf), len(seq)-1)
	e.tail = append(e.tail[:0], buf[len(buf)-keep:]...)
	if bytes.HasSuffix(buf, []byte(seq)) {
		e.tail = e.tail[:0]
	}
	return len(b), nil
}
