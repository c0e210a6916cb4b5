//go:build e2e

// Package flood floods warden, built without the race detector and run as
// a process of its own, with checkpoint answers on its agent's terminal and
// through its hook socket (issue 14's bounds). A package of its own so that
// `go test -tags e2e ./...` runs these minutes beside cmd/warden's other tests.
package flood

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	_ "github.com/wardenhq/warden/internal/fakeagent/hooked" // the "hookflood" mode
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor"
)

// Issue 14's flood: an agent answering 300,000 times as fast as it can,
// on its terminal or through the hook socket. warden runs as a binary of
// its own, built here without the race detector (the figures are warden's,
// not the test's or the detector's); the fake agent is this test binary.
const (
	floodBlocks = 300_000
	floodRSSMax = 64 << 20
	// The timers of the flood's team file; the stop must end within their
	// sum and a second.
	floodCheckpointTimeout = 3 * time.Second
	floodShutdownTimeout   = 3 * time.Second
)

// floodResult is what one flood run measured.
type floodResult struct {
	peakRSS  int64         // warden's VmHWM, bytes
	flood    time.Duration // first prompt typed → the agent sent its last answer
	stop     time.Duration // SIGTERM → warden exited and every process gone
	records  int           // checkpoint_received events
	dropped  int           // answers counted in answers_dropped events
	warnings int           // "sends answers faster" WARNING lines
	exit     int
	stdout   string
	stderr   string
	team     string
}

func (r floodResult) recordsPerSec() float64 { return float64(r.records) / r.flood.Seconds() }

// buildWarden builds cmd/warden into dir, without -race.
func buildWarden(tb testing.TB) string {
	tb.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(tb.TempDir(), "warden")
	cmd := exec.Command(goBin, "build", "-o", bin, "github.com/wardenhq/warden/cmd/warden")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/warden: %v\n%s", err, out)
	}
	return bin
}

// floodTeam writes a team of one plain agent running mode (with done=FILE
// added) on task T1.
func floodTeam(tb testing.TB, mode string) (team, done string) {
	dir := tb.TempDir()
	done = filepath.Join(dir, "flood-done")
	mode += ":done=" + done
	argv := fakeagent.Command(mode)
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	body := fmt.Sprintf(`name = "flood"
checkpoint_timeout = %q
shutdown_timeout = %q
[[task]]
id = "T1"
prompt = "Work."
[[agent]]
name = "f"
command = [%q, %q]
env = { %s = %q, %s = %q, GORACE = "atexit_sleep_ms=0" }
`, floodCheckpointTimeout.String(), floodShutdownTimeout.String(), argv[0], argv[1], fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner)
	team = filepath.Join(dir, "team.toml")
	if err := os.WriteFile(team, []byte(body), 0o600); err != nil {
		tb.Fatal(err)
	}
	return team, done
}

// runFlood runs warden (bin) on a flood of mode, sends SIGTERM once the agent
// is done sending — or, with twice, twice, 1.2 s apart (the second forces),
// a second into the flood — and measures.
func runFlood(tb testing.TB, bin, mode string, twice bool) floodResult {
	team, done := floodTeam(tb, mode)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", team)
	cmd.Env = append(os.Environ(), fakeagent.Env("unused")[1])
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	var res floodResult
	var mu sync.Mutex
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() { // warden's peak resident set, from the kernel
		defer close(watched)
		for {
			if hwm := vmHWM(cmd.Process.Pid); hwm > 0 {
				mu.Lock()
				res.peakRSS = max(res.peakRSS, hwm)
				mu.Unlock()
			}
			select {
			case <-stopWatch:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	events := filepath.Join(filepath.Dir(team), ".warden", "events.jsonl")
	started := time.Time{}
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if started.IsZero() {
			if b, _ := os.ReadFile(events); bytes.Contains(b, []byte(`"task_dispatched"`)) {
				started = time.Now()
			}
		}
		if _, err := os.Stat(done); err == nil || (twice && !started.IsZero() && time.Since(started) > time.Second) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			tb.Fatalf("the flood did not end within 3 minutes\n%s", stderr.String())
		}
	}
	res.flood = time.Since(started)
	time.Sleep(200 * time.Millisecond) // warden reads the last of it
	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	if twice {
		// A second request: after the window in which a signal is the first
		// one delivered again. The stop is timed from it.
		time.Sleep(supervisor.SignalWindow + 200*time.Millisecond)
		t0 = time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		res.exit = exitCode(err)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-exited
		tb.Errorf("warden did not exit within a minute of SIGTERM")
	}
	for len(proctest.Leftovers()) > 0 && time.Since(t0) < time.Minute {
		time.Sleep(5 * time.Millisecond)
	}
	res.stop = time.Since(t0)
	close(stopWatch)
	<-watched
	res.stdout, res.stderr, res.team = stdout.String(), stderr.String(), team
	res.warnings = strings.Count(res.stdout, "sends answers faster than warden records them")
	res.records, res.dropped = floodEvents(tb, events)
	return res
}

// floodEvents counts checkpoint_received events and the answers that
// answers_dropped events say were dropped.
func floodEvents(tb testing.TB, path string) (records, dropped int) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e["event"] {
		case "checkpoint_received":
			records++
		case "answers_dropped":
			for _, k := range []string{"superseded", "rejected", "hooks"} {
				n, _ := e[k].(float64)
				dropped += int(n)
			}
		}
	}
	return records, dropped
}

// vmHWM is process pid's peak resident set in bytes (0 when gone).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// checkFlood asserts the bounds of issue 14 on a flood's result.
func checkFlood(t *testing.T, res floodResult, sent int) {
	t.Helper()
	t.Logf("flood of %d answers in %s: %d records (%.0f/s), %d counted as dropped; peak RSS %.1f MiB; stop %s",
		sent, res.flood.Round(time.Millisecond), res.records, res.recordsPerSec(), res.dropped,
		float64(res.peakRSS)/(1<<20), res.stop.Round(time.Millisecond))
	if res.peakRSS > floodRSSMax || res.peakRSS == 0 {
		t.Errorf("warden's peak RSS %.1f MiB, want ≤ %d MiB", float64(res.peakRSS)/(1<<20), floodRSSMax>>20)
	}
	if limit := floodCheckpointTimeout + floodShutdownTimeout + time.Second; res.stop > limit {
		t.Errorf("the stop took %s, more than checkpoint_timeout + shutdown_timeout + 1s = %s", res.stop, limit)
	}
	if res.exit != 130 {
		t.Errorf("exit %d, want 130", res.exit)
	}
	if res.records == 0 || res.warnings != 1 || res.dropped == 0 || res.records+res.dropped > sent {
		t.Errorf("%d records, %d dropped of %d sent, %d WARNING lines: want records, what was dropped counted, one WARNING\n%s",
			res.records, res.dropped, sent, res.warnings, res.stdout)
	}
	if !strings.Contains(res.stdout, "\nCHECKPOINT COMPLETE\n") {
		t.Errorf("no CHECKPOINT COMPLETE after the flood:\n%s", tail(res.stdout, 2000))
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

func TestFloodOfAnswersOnTheTerminal(t *testing.T) {
	defer proctest.AssertNone(t)
	res := runFlood(t, buildWarden(t), "floodblocks:n="+strconv.Itoa(floodBlocks)+":ignore=1", false)
	checkFlood(t, res, floodBlocks)
}

func TestFloodOfAnswersThroughTheHookSocket(t *testing.T) {
	defer proctest.AssertNone(t)
	res := runFlood(t, buildWarden(t), "hookflood:n="+strconv.Itoa(floodBlocks), false)
	checkFlood(t, res, floodBlocks)
}

// A second SIGTERM in the middle of a flood — a second request, after
// supervisor.SignalWindow —, from an agent that ignores TERM, kills every
// group at once.
func TestSecondSignalEndsAFlood(t *testing.T) {
	defer proctest.AssertNone(t)
	res := runFlood(t, buildWarden(t), "floodblocks:n=3000000:ignore=1", true)
	if _, err := os.Stat(filepath.Join(filepath.Dir(res.team), "flood-done")); err == nil {
		t.Fatal("the flood was over before the signals: the test proves nothing")
	}
	t.Logf("two SIGTERMs 1.2 s apart: warden exited %d, everything gone %s after the second", res.exit, res.stop.Round(time.Millisecond))
	if res.stop > time.Second || res.exit != 130 {
		t.Errorf("two SIGTERMs: warden exited %d %s after the second, everything gone; want 130 within 1s (the second kills at once)\n%s",
			res.exit, res.stop, res.stderr)
	}
}

// BenchmarkFlood measures a flood of 300,000 answers on the terminal and
// through the hook socket: records a second, warden's peak RSS, and the
// stop (SIGTERM → warden exited, every process gone) with
// checkpoint_timeout 3s and shutdown_timeout 3s.
func BenchmarkFlood(b *testing.B) {
	bin := buildWarden(b)
	for _, m := range []struct{ name, mode string }{
		{"terminal", "floodblocks:n=" + strconv.Itoa(floodBlocks) + ":ignore=1"},
		{"hook", "hookflood:n=" + strconv.Itoa(floodBlocks)},
	} {
		b.Run(m.name, func(b *testing.B) {
			var res floodResult
			for i := 0; i < b.N; i++ {
				res = runFlood(b, bin, m.mode, false)
			}
			b.ReportMetric(res.flood.Seconds(), "flood-s")
			b.ReportMetric(res.recordsPerSec(), "records/s")
			b.ReportMetric(float64(res.dropped), "dropped")
			b.ReportMetric(float64(res.peakRSS)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(res.stop.Seconds(), "stop-s")
		})
	}
}

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
