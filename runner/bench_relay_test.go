//go:build e2e

package runner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
)

// benchDir is where the relayed bytes go: a tmpfs, so that disk writeback
// is not measured (WARDEN_BENCH_DIR overrides it).
func benchDir(b *testing.B) string {
	dir := os.Getenv("WARDEN_BENCH_DIR")
	if dir == "" {
		dir = "/dev/shm"
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return b.TempDir()
	}
	d, err := os.MkdirTemp(dir, "warden-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// runRunner relays one fake agent in mode through the runner to logPath
// (rotated at the default 50 MiB), with a plain agent's reader as Output: a
// protocol.Reader in ModeLines. It returns the bytes logged.
func runRunner(b *testing.B, mode, logPath string) int64 {
	cfg := fakeConfig(mode)
	cfg.LogPath = logPath
	cfg.Output = protocol.NewReader(hclog.NewNullLogger(), protocol.ReaderOptions{Mode: protocol.ModeLines})
	p, err := Start(testLogger, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if exit := p.Wait(); !exit.Success() {
		b.Fatalf("exit %v", exit)
	}
	return logSize(b, logPath)
}

// runBare is the obvious code: pty.Start, blocking 32 KiB reads, each
// written to the log, cmd.Wait.
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

// BenchmarkRelay: one child's output relayed to its log on a tmpfs, runner
// (log + plain-agent line reader) and bare loop interleaved.
//
//	lines100-w64KiB  200 MB of 100-byte lines in 64 KiB writes: the relay is
//	                 the bottleneck (the kernel's cooked pty is the limit)
//	lines64-w64B     20 MB, one write(2) per 64-byte line: the writer is the
//	                 bottleneck, so this measures the writer more than us
//
// go test -tags e2e -run '^$' -bench Relay -benchtime 3x ./runner/
func BenchmarkRelay(b *testing.B) {
	for _, w := range []struct {
		name                 string
		bytes, line, perCall int
	}{
		{"lines100-w64KiB", 200_000_000, 100, 64 << 10},
		{"lines64-w64B", 20_000_000, 64, 64},
	} {
		b.Run(w.name, func(b *testing.B) {
			defer proctest.AssertNone(b)
			mode := genMode(w.bytes, w.line, w.perCall)
			dir := benchDir(b)
			r, br := interleave(b,
				func() int64 { return runRunner(b, mode, filepath.Join(dir, "runner.log")) },
				func() int64 { return runBare(b, mode, filepath.Join(dir, "bare.log")) })
			reportRelay(b, r, br)
		})
	}
}

// BenchmarkFanout: 50 children write 4 MB each at once (100-byte lines, 64
// KiB writes), each relayed to its own log; runner and bare interleaved.
// peak-RSS-MB is this test process's VmHWM during the runner's runs.
//
// go test -tags e2e -run '^$' -bench Fanout -benchtime 5x ./runner/
func BenchmarkFanout(b *testing.B) {
	const children = 50
	defer proctest.AssertNone(b)
	mode := genMode(4_000_000, 100, 64<<10)
	dir := benchDir(b)
	peak, barePeak := 0, 0
	fan := func(run relayFunc, prefix string, peak *int) func() int64 {
		return func() int64 {
			resetPeakRSS()
			var wg sync.WaitGroup
			sizes := make([]int64, children)
			for i := range children {
				wg.Go(func() {
					sizes[i] = run(b, mode, filepath.Join(dir, fmt.Sprintf("%s-%d.log", prefix, i)))
				})
			}
			wg.Wait()
			*peak = max(*peak, selfStatus("VmHWM"))
			var n int64
			for _, s := range sizes {
				n += s
			}
			return n
		}
	}
	r, br := interleave(b, fan(runRunner, "runner", &peak), fan(runBare, "bare", &barePeak))
	reportRelay(b, r, br)
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(barePeak)/1024, "bare-peak-RSS-MB")
}

type relayFunc func(b *testing.B, mode, logPath string) int64

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
