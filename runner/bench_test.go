package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// Each benchmark runs the runner and, side by side, the obvious code: a bare
// creack/pty loop (pty.Start, blocking 32 KiB reads into a log file,
// cmd.Wait).

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// selfStatus returns a numeric field of /proc/self/status ("Threads",
// "VmRSS" in kB, …).
func selfStatus(field string) int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range bytes.Split(b, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && string(k) == field {
			n, _ := strconv.Atoi(string(bytes.Fields(v)[0]))
			return n
		}
	}
	return -1
}

// resetPeakRSS resets VmHWM to the current RSS.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// contextSwitches sums voluntary and involuntary switches over our threads.
func contextSwitches() int {
	tasks, _ := os.ReadDir("/proc/self/task")
	total := 0
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/status")
		for _, line := range bytes.Split(b, []byte("\n")) {
			if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.HasSuffix(k, []byte("ctxt_switches")) {
				n, _ := strconv.Atoi(string(bytes.TrimSpace(v)))
				total += n
			}
		}
	}
	return total
}

// runRunner relays one fake agent in mode through the runner to logPath
// (rotated at the default size, so BenchmarkRelay's 200 MiB rotate 4 times),
// with a Lines writer as Output; it returns the bytes logged.
func runRunner(b *testing.B, mode, logPath string) int64 {
	lines := 0
	cfg := fakeConfig(mode)
	cfg.LogPath = logPath
	cfg.Output = NewLines(func([]byte) { lines++ })
	p, err := Start(testLogger, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if exit := p.Wait(); !exit.Success() {
		b.Fatalf("exit %v", exit)
	}
	return logSize(b, logPath)
}

// runBare is the obvious code.
func runBare(b *testing.B, mode, logPath string) int64 {
	argv := fakeagent.Command(mode)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), fakeagent.Env(mode)...)
	f, err := pty.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			_, _ = log.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	_ = f.Close()
	_ = log.Close()
	return logSize(b, logPath)
}

// logSize is the size of the log at path plus its rotated files
// (path.1, …), which it removes.
func logSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	_ = os.Remove(path)
	n := fi.Size()
	for i := 1; ; i++ {
		old := path + "." + strconv.Itoa(i)
		fi, err := os.Stat(old)
		if err != nil {
			return n
		}
		n += fi.Size()
		_ = os.Remove(old)
	}
}

type relayFunc func(b *testing.B, mode, logPath string) int64

var relays = []struct {
	name string
	run  relayFunc
}{{"runner", runRunner}, {"bare", runBare}}

// BenchmarkIdle runs first (benchmarks run in file order): the bare fan-out
// leaves ~50 parked OS threads behind that the Go runtime never releases,
// which would be counted against the runner here.
// BenchmarkIdle: start N idle agents; report the time until all were started
// and until all printed "ready", OS threads and RSS with all idle, and
// context switches of our threads per second over 2 s of idling.
func BenchmarkIdle(b *testing.B) {
	for _, n := range []int{50, 100} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			defer proctest.AssertNone(b)
			var startedMs, readyMs, threads, rssKB, wakeups float64
			for b.Loop() {
				ready := make(chan struct{}, n)
				procs := make([]*Process, n)
				t0 := time.Now()
				for i := range procs {
					cfg := fakeConfig("idle")
					cfg.Output = NewLines(func(l []byte) {
						if string(l) == "ready" {
							ready <- struct{}{}
						}
					})
					p, err := Start(testLogger, cfg)
					if err != nil {
						b.Fatal(err)
					}
					procs[i] = p
				}
				startedMs += float64(time.Since(t0).Microseconds()) / 1000
				for range n {
					select {
					case <-ready:
					case <-time.After(30 * time.Second):
						b.Fatal("agents not ready after 30 s")
					}
				}
				readyMs += float64(time.Since(t0).Microseconds()) / 1000
				b.StopTimer()
				time.Sleep(200 * time.Millisecond) // let start-up work settle
				threads += float64(selfStatus("Threads"))
				rssKB += float64(selfStatus("VmRSS"))
				cs0 := contextSwitches()
				time.Sleep(2 * time.Second)
				wakeups += float64(contextSwitches()-cs0) / 2
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				var wg sync.WaitGroup
				for _, p := range procs {
					wg.Add(1)
					go func() { defer wg.Done(); p.Stop(ctx) }()
				}
				wg.Wait()
				cancel()
				b.StartTimer()
			}
			runs := float64(b.N)
			b.ReportMetric(startedMs/runs, "started-ms")
			b.ReportMetric(readyMs/runs, "ready-ms")
			b.ReportMetric(threads/runs, "threads")
			b.ReportMetric(rssKB/runs/1024, "RSS-MB")
			b.ReportMetric(wakeups/runs, "wakeups/s")
		})
	}
}

// BenchmarkRelay: one child writes 200 MiB through the relay to its log.
func BenchmarkRelay(b *testing.B) {
	for _, r := range relays {
		b.Run(r.name, func(b *testing.B) {
			defer proctest.AssertNone(b)
			logPath := filepath.Join(b.TempDir(), "agent.log")
			var total int64
			cpu0 := cpuSeconds()
			for b.Loop() {
				n := r.run(b, "flood:200", logPath)
				total += n
				b.SetBytes(n)
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(total)*1e9, "cpu-s/GB")
		})
	}
}

// BenchmarkFanout: 50 children write 4 MiB each at once.
func BenchmarkFanout(b *testing.B) {
	const children = 50
	for _, r := range relays {
		b.Run(r.name, func(b *testing.B) {
			defer proctest.AssertNone(b)
			dir := b.TempDir()
			var total int64
			peak := 0
			cpu0 := cpuSeconds()
			for b.Loop() {
				resetPeakRSS()
				var wg sync.WaitGroup
				sizes := make([]int64, children)
				for i := range children {
					wg.Add(1)
					go func() {
						defer wg.Done()
						sizes[i] = r.run(b, "flood:4", filepath.Join(dir, fmt.Sprintf("agent-%d.log", i)))
					}()
				}
				wg.Wait()
				var n int64
				for _, s := range sizes {
					n += s
				}
				total += n
				b.SetBytes(n)
				peak = max(peak, selfStatus("VmHWM"))
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(total)*1e9, "cpu-s/GB")
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
		})
	}
}

// BenchmarkLogWrite: the log writer's own cost, 32 KiB chunks (the reader's
// buffer) written to /dev/null, so that the disk does not drown it: through
// a logFile (rotating every 50 MiB: close, renames, reopen) and bare
// os.File.Writes (the runner's log before rotation).
func BenchmarkLogWrite(b *testing.B) {
	chunk := bytes.Repeat([]byte("x"), readBufSize)
	devNull := func(string) (*os.File, int64, error) {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		return f, 0, err
	}
	b.Run("logFile", func(b *testing.B) {
		l := newLogFile(testLogger, Config{LogPath: filepath.Join(b.TempDir(), "agent.log")})
		l.open = devNull
		if err := l.start(); err != nil {
			b.Fatal(err)
		}
		defer l.close()
		b.SetBytes(int64(len(chunk)))
		for b.Loop() {
			l.write(chunk)
		}
		if l.failing {
			b.Fatal("log failed")
		}
	})
	b.Run("bare", func(b *testing.B) {
		f, _, err := devNull("")
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		b.SetBytes(int64(len(chunk)))
		for b.Loop() {
			if _, err := f.Write(chunk); err != nil {
				b.Fatal(err)
			}
		}
	})
}
