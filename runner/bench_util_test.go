//go:build e2e

package runner

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// Measuring helpers shared by the benchmarks. Every benchmark runs the runner
// and the obvious code (the "bare loop": creack/pty, blocking reads into a
// file, cmd.Wait) in the same process, interleaved run by run, and reports
// the runner's figures, the bare loop's, and their ratios.

// gen:BYTES:LINE:WRITE writes BYTES bytes of LINE-byte lines ('x's and '\n')
// in write(2) calls of WRITE bytes (whole lines, at least one), then exits 0.
// gen:200000000:100:65536 is the relay-bound workload (the cooked pty is the
// limit); gen:N:64:64 is one write per line, the writer-bound one.
func init() { fakeagent.Register("gen", modeGen) }

func modeGen(args []string) int {
	arg := func(i, def int) int {
		if i < len(args) {
			if n, err := strconv.Atoi(args[i]); err == nil {
				return n
			}
		}
		return def
	}
	total, lineLen, wsize := arg(0, 1<<20), max(arg(1, 100), 1), arg(2, 64<<10)
	line := append(bytes.Repeat([]byte{'x'}, lineLen-1), '\n')
	buf := bytes.Repeat(line, max(wsize/lineLen, 1))
	for total > 0 {
		n := min(total, len(buf))
		if _, err := os.Stdout.Write(buf[:n]); err != nil {
			return 99
		}
		total -= n
	}
	return 0
}

// genMode is the fake agent mode writing bytes in lineLen-byte lines, wsize
// bytes per write.
func genMode(bytes, lineLen, wsize int) string {
	return fmt.Sprintf("gen:%d:%d:%d", bytes, lineLen, wsize)
}

// cpuSeconds is this process's user+system CPU time (its children excluded:
// the fake agents are not counted).
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

// schedRuns is how often the scheduler ran one of our threads: the sum of
// the second field of /proc/self/task/*/schedstat ("run time, wait time,
// timeslices"): every wake-up of a thread is at least one timeslice.
func schedRuns() int64 {
	tasks, _ := os.ReadDir("/proc/self/task")
	var total int64
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if f := bytes.Fields(b); len(f) == 3 {
			n, _ := strconv.ParseInt(string(f[2]), 10, 64)
			total += n
		}
	}
	return total
}

// pair accumulates one candidate's runs.
type pair struct {
	wall, cpu float64 // seconds
	bytes     int64
	runs      int
}

// measure runs fn once, after a GC, and adds its wall and CPU time.
func (p *pair) measure(fn func() int64) {
	runtime.GC()
	c0, t0 := cpuSeconds(), time.Now()
	n := fn()
	p.wall += time.Since(t0).Seconds()
	p.cpu += cpuSeconds() - c0
	p.bytes += n
	p.runs++
}

// interleave runs runner and bare once each per iteration, alternating
// which goes first.
func interleave(b *testing.B, runner, bare func() int64) (r, br *pair) {
	r, br = &pair{}, &pair{}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			br.measure(bare)
			r.measure(runner)
		} else {
			r.measure(runner)
			br.measure(bare)
		}
		i++
	}
	return r, br
}

// reportRelay reports throughput and CPU per GB of both, and the ratios.
func reportRelay(b *testing.B, r, br *pair) {
	b.ReportMetric(float64(r.bytes)/1e6/r.wall, "MB/s")
	b.ReportMetric(float64(br.bytes)/1e6/br.wall, "bare-MB/s")
	b.ReportMetric(r.cpu/float64(r.bytes)*1e9, "cpu-s/GB")
	b.ReportMetric(br.cpu/float64(br.bytes)*1e9, "bare-cpu-s/GB")
	b.ReportMetric(r.wall/br.wall, "wall-x")
	b.ReportMetric((r.cpu/float64(r.bytes))/(br.cpu/float64(br.bytes)), "cpu-x")
}
