//go:build e2e

package runner

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// The idle and start benchmarks run a shell that prints "ready" and execs
// sleep (as the side-by-side kit does), so the children cost little and
// never wake us. The bare loop beside the runner is pty.Start plus one
// goroutine reading the master through the netpoller (non-blocking), so
// neither parks an OS thread per child.

const readyScript = "echo ready; exec sleep 1000"

func readyArgv() []string { return []string{"/bin/sh", "-c", readyScript} }

// readyWriter calls fn once, when "ready" has gone by.
type readyWriter struct {
	once sync.Once
	seen []byte
	fn   func()
}

func (w *readyWriter) Write(b []byte) (int, error) {
	w.seen = append(w.seen, b...)
	if bytes.Contains(w.seen, []byte("ready")) {
		w.once.Do(w.fn)
		w.seen = w.seen[:0]
	}
	return len(b), nil
}

// team is n agents started at once, by the runner or bare.
type team struct {
	started, running time.Duration // until every start returned; every child printed ready
	stop             func()
}

// startRunners starts n agents from n goroutines at once.
func startRunners(b *testing.B, n int) team {
	var ready, startWG sync.WaitGroup
	ready.Add(n)
	procs := make([]*Process, n)
	t0 := time.Now()
	for i := range procs {
		startWG.Go(func() {
			p, err := Start(testLogger, Config{Name: "idle", Argv: readyArgv(), Env: fakeagent.Env("sh"),
				Output: &readyWriter{fn: ready.Done}})
			if err != nil {
				b.Error(err)
				ready.Done()
				return
			}
			procs[i] = p
		})
	}
	startWG.Wait()
	started := time.Since(t0)
	ready.Wait()
	return team{started: started, running: time.Since(t0), stop: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		for _, p := range procs {
			if p != nil {
				wg.Go(func() { p.Stop(ctx) })
			}
		}
		wg.Wait()
	}}
}

// startBare is the bare loop's start: pty.Start from n goroutines at once,
// one reader goroutine per master, cmd.Wait in the stop.
func startBare(b *testing.B, n int) team {
	var ready, startWG, readers sync.WaitGroup
	ready.Add(n)
	cmds := make([]*exec.Cmd, n)
	t0 := time.Now()
	for i := range cmds {
		startWG.Go(func() {
			cmd := exec.Command("/bin/sh", "-c", readyScript)
			cmd.Env = append(os.Environ(), fakeagent.Env("sh")...)
			f, err := pty.Start(cmd)
			if err == nil {
				f, err = nonBlocking(f)
			}
			if err != nil {
				b.Error(err)
				ready.Done()
				return
			}
			cmds[i] = cmd
			readers.Go(func() {
				w := &readyWriter{fn: ready.Done}
				buf := make([]byte, 32<<10)
				for {
					n, err := f.Read(buf)
					_, _ = w.Write(buf[:n])
					if err != nil {
						_ = f.Close()
						return
					}
				}
			})
		})
	}
	startWG.Wait()
	started := time.Since(t0)
	ready.Wait()
	return team{started: started, running: time.Since(t0), stop: func() {
		for _, cmd := range cmds {
			if cmd != nil {
				_ = cmd.Process.Signal(os.Interrupt)
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		}
		readers.Wait()
	}}
}

// BenchmarkStart: 100 agents started at once (from 100 goroutines), runner
// and bare interleaved: the time until every start returned and until every
// child ran (printed "ready").
//
// go test -tags e2e -run '^$' -bench Start -benchtime 10x ./runner/
func BenchmarkStart(b *testing.B) {
	const n = 100
	defer proctest.AssertNone(b)
	var r, br [2]time.Duration
	i := 0
	for b.Loop() {
		for k := range 2 {
			start, acc := startRunners, &r
			if (i+k)%2 == 0 {
				start, acc = startBare, &br
			}
			tm := start(b, n)
			b.StopTimer()
			acc[0] += tm.started
			acc[1] += tm.running
			tm.stop()
			b.StartTimer()
		}
		i++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(i) }
	b.ReportMetric(ms(r[0]), "started-ms")
	b.ReportMetric(ms(r[1]), "running-ms")
	b.ReportMetric(ms(br[0]), "bare-started-ms")
	b.ReportMetric(ms(br[1]), "bare-running-ms")
	b.ReportMetric(float64(r[1])/float64(br[1]), "running-x")
}
