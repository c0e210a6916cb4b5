//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/control"
)

// Fake agent modes for the operating benchmarks.
//
//	stamps:N:INTERVAL   print "STAMP <unix nanos>" N times, INTERVAL apart, then idle
//	gateflood:GATE:MIB:OUT
//	                    wait until the file GATE exists, write MIB MiB of 64-byte
//	                    lines as fast as the terminal takes them, write the time
//	                    that took (nanoseconds) to OUT, exit 0
func init() {
	fakeagent.Register("stamps", func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		every, _ := time.ParseDuration(args[1])
		for i := 0; i < n; i++ {
			fmt.Printf("STAMP %d\n", time.Now().UnixNano())
			time.Sleep(every)
		}
		time.Sleep(time.Hour)
		return 0
	})
	fakeagent.Register("gateflood", func(args []string) int {
		for {
			if _, err := os.Stat(args[0]); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		mib, _ := strconv.Atoi(args[1])
		chunk := bytes.Repeat(fakeagent.FloodLine, 1024) // 64 KiB
		t0 := time.Now()
		for i := 0; i < mib*16; i++ {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
		os.WriteFile(args[2], []byte(strconv.FormatInt(int64(time.Since(t0)), 10)), 0o600)
		return 0
	})
}

// stampLatencies reads STAMP lines from r until n stamps newer than since
// came; it returns each one's age on arrival.
func stampLatencies(b *testing.B, r *os.File, n int, since time.Time) []time.Duration {
	var lat []time.Duration
	sc := bufio.NewScanner(r)
	deadline := time.Now().Add(60 * time.Second)
	for len(lat) < n && sc.Scan() && time.Now().Before(deadline) {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasSuffix(f[len(f)-2], "STAMP") {
			continue
		}
		ns, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		if err != nil || ns < since.UnixNano() {
			continue
		}
		lat = append(lat, time.Since(time.Unix(0, ns)))
	}
	if len(lat) < n {
		b.Fatalf("%d stamps of %d", len(lat), n)
	}
	return lat
}

func pct(d []time.Duration, p float64) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkAttachLatency: a byte the agent writes → on the viewer's
// terminal (warden attach in a pty), beside the same agent read straight
// from its own pty (target: attach adds ≤ 5 ms to the median).
func BenchmarkAttachLatency(b *testing.B) {
	defer proctest.AssertNone(b)
	const n = 200
	var bare, attached []time.Duration
	for i := 0; i < b.N; i++ {
		mode := fmt.Sprintf("stamps:%d:10ms", n+50)
		argv := fakeagent.Command(mode)
		direct := exec.Command(argv[0], argv[1:]...)
		direct.Env = append(os.Environ(), fakeagent.Env(mode)...)
		f, err := pty.StartWithSize(direct, &pty.Winsize{Rows: 50, Cols: 200})
		if err != nil {
			b.Fatal(err)
		}
		bare = append(bare, stampLatencies(b, f, n, time.Now())...)
		direct.Process.Kill()
		direct.Wait()
		f.Close()

		team := opsTeam(b, "", opsAgent{name: "s", mode: mode})
		run, _ := startWardenB(b, team, 1)
		v := warden("attach", team, "s")
		vf, err := pty.StartWithSize(v, &pty.Winsize{Rows: 50, Cols: 200})
		if err != nil {
			b.Fatal(err)
		}
		attached = append(attached, stampLatencies(b, vf, n, time.Now())...)
		v.Process.Kill()
		v.Wait()
		vf.Close()
		stopRun(run)
	}
	mb, ma := pct(bare, 0.5), pct(attached, 0.5)
	b.ReportMetric(ms(mb), "bare-median-ms")
	b.ReportMetric(ms(ma), "attach-median-ms")
	b.ReportMetric(ms(pct(attached, 0.99)), "attach-p99-ms")
	b.ReportMetric(ms(ma-mb), "added-ms")
}

// BenchmarkViewersCost: an agent writes 32 MiB as fast as its terminal
// takes it, with no viewer, with 10 viewers that never read (dropped), and
// with 9 that read everything plus one that never reads; its MB/s each
// time (target: the viewers cost the agent nothing).
func BenchmarkViewersCost(b *testing.B) {
	defer proctest.AssertNone(b)
	const mib = 32
	rate := map[string][]float64{}
	dropped := map[string]int{}
	for i := 0; i < b.N; i++ {
		for _, setup := range []struct {
			name           string
			readers, stuck int
		}{{"none", 0, 0}, {"10-stuck", 0, 10}, {"9-reading-1-stuck", 9, 1}} {
			dir := b.TempDir()
			gate, out := filepath.Join(dir, "gate"), filepath.Join(dir, "took")
			mode := fmt.Sprintf("gateflood:%s:%d:%s", gate, mib, out)
			team := opsTeam(b, "", opsAgent{name: "f", mode: mode})
			run, _ := startWardenB(b, team, 1)
			c := control.NewClient(stateOf(team))
			var wg sync.WaitGroup
			var streams []*control.Stream
			var mu sync.Mutex
			for v := 0; v < setup.readers+setup.stuck; v++ {
				st, err := c.Attach("f", false)
				if err != nil {
					b.Fatal(err)
				}
				streams = append(streams, st)
				if v >= setup.readers {
					continue // never reads
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						kind, p, err := st.Next()
						if err != nil {
							return
						}
						if kind == control.FrameEnd && strings.Contains(string(p), "fell behind") {
							mu.Lock()
							dropped[setup.name]++
							mu.Unlock()
						}
					}
				}()
			}
			os.WriteFile(gate, nil, 0o600)
			var took int64
			for deadline := time.Now().Add(2 * time.Minute); took == 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatal("the flood did not end")
				}
				if s, err := os.ReadFile(out); err == nil && len(s) > 0 {
					took, _ = strconv.ParseInt(string(s), 10, 64)
				}
			}
			rate[setup.name] = append(rate[setup.name], float64(mib<<20)/1e6/time.Duration(took).Seconds())
			for _, st := range streams {
				st.Detach()
			}
			wg.Wait()
			stopRun(run)
		}
	}
	for name, r := range rate {
		sort.Float64s(r)
		b.ReportMetric(r[len(r)/2], name+"-MB/s")
	}
	b.ReportMetric(float64(dropped["9-reading-1-stuck"])/float64(b.N), "readers-dropped")
}

// buildWardenBin builds the real warden binary (not the test binary) for
// timing commands as users run them.
var buildWardenBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "warden-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "warden")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// fifty is a team of 50 idle plain agents.
func fifty(b *testing.B) string {
	agents := make([]opsAgent, 50)
	for i := range agents {
		agents[i] = opsAgent{name: fmt.Sprintf("a%02d", i), mode: "idle"}
	}
	return opsTeam(b, "", agents...)
}

// BenchmarkPS50: `warden ps` (the built binary, process start to exit)
// against a running team of 50 agents (target ≤ 50 ms).
func BenchmarkPS50(b *testing.B) {
	defer proctest.AssertNone(b)
	bin, err := buildWardenBin()
	if err != nil {
		b.Fatal(err)
	}
	team := fifty(b)
	run, _ := startWardenB(b, team, 50)
	defer stopRun(run)
	var took []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		out, err := exec.Command(bin, "ps", "--state-dir", stateOf(team)).Output()
		took = append(took, time.Since(t0))
		if err != nil || strings.Count(string(out), " running ") != 50 {
			b.Fatalf("warden ps: %v\n%s", err, out)
		}
	}
	b.ReportMetric(ms(pct(took, 0.5)), "median-ms")
	b.ReportMetric(ms(pct(took, 0.95)), "p95-ms")
}

// BenchmarkPageFirstPaint50: the dashboard page in headless Chromium with
// 50 agents: first contentful paint, and every agent's card drawn, from
// navigation start (target ≤ 500 ms).
func BenchmarkPageFirstPaint50(b *testing.B) {
	defer proctest.AssertNone(b)
	bin := chromium(b)
	team := fifty(b)
	run, url := runWithPage(b, team)
	defer stopRun(run)
	waitEvents(b, team, "agent_started", "", 50)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	browser, end := startBrowser(b, ctx, bin, 1400, 1000)
	defer end()
	var fcp, cards []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, closeTab := openTab(b, browser)
		navigate(b, p, url)
		at, err := chromedp.Run(p, chromedp.Evaluate[struct{ FCP, Cards float64 }](`new Promise(done => {
			const check = () => {
				if (document.querySelectorAll('article.agent').length < 50) return requestAnimationFrame(check);
				const cards = performance.now();
				requestAnimationFrame(() => {
					const p = performance.getEntriesByName('first-contentful-paint')[0];
					done({FCP: p ? p.startTime : -1, Cards: cards});
				});
			};
			check();
		})`, chromedp.EvalAwaitPromise))
		closeTab()
		if err != nil {
			b.Fatal(err)
		}
		fcp = append(fcp, time.Duration(at.FCP*float64(time.Millisecond)))
		cards = append(cards, time.Duration(at.Cards*float64(time.Millisecond)))
	}
	b.ReportMetric(ms(pct(fcp, 0.5)), "first-paint-ms")
	b.ReportMetric(ms(pct(cards, 0.5)), "all-50-agents-ms")
	b.ReportMetric(ms(pct(cards, 1)), "all-50-agents-max-ms")
}
