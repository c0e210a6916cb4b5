//go:build e2e

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/asciicast"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// BenchmarkUpgrade measures `warden upgrade` of a held team (holder =
// true) of 50 fake agents (and of 4, beside BenchmarkTakeBack's), each writing a line stamped with the time it
// wrote it every 50 ms (worker tick=50ms) while it works on its task:
//
//   - restarted: agents restarted over the upgrade (agent_started not
//     taken back, agent_restarted, agent_exited): must be 0;
//
//   - ms/upgrade: from `warden upgrade` to its return, once the new warden
//     answers and runs every agent's old process again;
//
//   - ms-relay-pause-max / -median: the longest time a line an agent wrote
//     waited before warden recorded it (its .cast recordings, the old
//     warden's and the new one's: each event's time there against the
//     stamp in the line), the largest over the agents and the median of
//     each agent's largest.
//
//     go test -tags e2e -run '^$' -bench BenchmarkUpgrade -benchtime 1x ./cmd/warden/
func BenchmarkUpgrade(b *testing.B) {
	for _, n := range []int{4, 50} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) { benchUpgrade(b, n) })
	}
}

func benchUpgrade(b *testing.B, n int) {
	defer proctest.AssertNone(b)
	var upgrade time.Duration
	var maxes []time.Duration
	restarted := 0
	var holderRSS int64 // the holder's own, bytes: the most seen
	for range b.N {
		b.StopTimer()
		team := tickTeam(b, n, "worker:steps=200:slow=200ms:tick=50ms")
		state := filepath.Join(filepath.Dir(team), ".warden")
		cmd, out := runWarden(b, "run", team)
		b.Cleanup(func() { // a failed iteration leaves nothing either
			if cmd.ProcessState == nil {
				_ = warden("stop", team, "--now").Run()
				_ = cmd.Wait()
			}
		})
		waitAttached(b, out, n)
		time.Sleep(2 * time.Second) // each agent at work on its task, its output relayed
		if h := holderOf(startedPids(b, state)["w1"][0]); h > 0 {
			holderRSS = max(holderRSS, residentBytes(h))
		}
		before := len(readEvents(b, state))
		start := time.Now()
		msg, err := warden("upgrade", team).CombinedOutput()
		upgrade += time.Since(start)
		if err != nil {
			b.Fatalf("warden upgrade: %v\n%s\n%s", err, msg, out.dump())
		}
		b.Logf("%s", strings.TrimSpace(string(msg)))
		time.Sleep(2 * time.Second) // the new warden relays for a while
		for _, e := range readEvents(b, state)[before:] {
			switch {
			case e.Event == "agent_started" && !e.TakenBack, e.Event == "agent_restarted", e.Event == "agent_exited":
				restarted++
			}
		}
		if msg, err := warden("stop", team, "--now").CombinedOutput(); err != nil {
			b.Fatalf("warden stop: %v\n%s", err, msg)
		}
		cmd.Wait()
		if f := os.Getenv("WARDEN_BENCH_DUMP"); f != "" { // warden's output and log, to see where the pause goes
			_ = os.WriteFile(f, []byte(out.dump()), 0o600)
		}
		for i := 1; i <= n; i++ {
			maxes = append(maxes, relayPause(b, filepath.Join(state, "logs"), fmt.Sprintf("w%d", i)))
		}
		b.StartTimer()
	}
	slices.Sort(maxes)
	b.ReportMetric(float64(restarted), "restarted")
	b.ReportMetric(float64(holderRSS)/(1<<20), "MB-holder-RSS")
	b.ReportMetric(float64(upgrade.Milliseconds())/float64(b.N), "ms/upgrade")
	b.ReportMetric(float64(maxes[len(maxes)-1].Milliseconds()), "ms-relay-pause-max")
	b.ReportMetric(float64(maxes[len(maxes)/2].Milliseconds()), "ms-relay-pause-median")
}

// tickTeam is a held team of n agents of mode, a task each, asked for a
// checkpoint every 3 s.
func tickTeam(b testing.TB, n int, mode string) string {
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var s strings.Builder
	s.WriteString("name = \"lifecycle\"\nholder = true\ncheckpoint_interval = \"3s\"\ncheckpoint_timeout = \"20s\"\nshutdown_timeout = \"2s\"\n")
	argv := fakeagent.Command(mode)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&s, "[[agent]]\nname = \"w%d\"\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q }\n",
			i, argv[0], argv[1], fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner)
		fmt.Fprintf(&s, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"Do task %d.\"\nagent = \"w%d\"\n", i, i, i, i)
	}
	p := filepath.Join(b.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(s.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// waitAttached waits up to a minute (50 agents starting on 2 cores) until
// n agents run (warden's log: "agent attached", through the holder).
func waitAttached(b testing.TB, out *lines, n int) {
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		out.mu.Lock()
		got := strings.Count(out.stderr.String(), "agent attached:")
		out.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d agents attached within a minute, want %d:\n%s", got, n, out.dump())
		}
	}
}

// relayPause is the longest a TICK line of agent waited between its stamp
// and its recording, over every recording of the agent in dir. A
// recording's start is known to the second only: it is taken as the one
// that makes its quickest line take no time (each recording's lines mostly
// come within a millisecond or so).
func relayPause(b testing.TB, dir, agent string) time.Duration {
	casts, _ := filepath.Glob(filepath.Join(dir, agent+"-*.cast"))
	if len(casts) < 2 {
		b.Fatalf("%s: recordings %v, want the old warden's and the new one's", agent, casts)
	}
	var worst time.Duration
	for _, c := range casts {
		type tick struct{ at, stamp int64 } // ns since the recording's start, unix ns
		var ticks []tick
		f, err := os.Open(c)
		if err != nil {
			b.Fatal(err)
		}
		r, err := asciicast.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		var pending string
		for {
			e, err := r.Next()
			if err != nil {
				break
			}
			pending += e.Data
			for {
				line, rest, ok := strings.Cut(pending, "\n")
				if !ok {
					break
				}
				pending = rest
				if s, ok := strings.CutPrefix(strings.TrimSpace(line), "TICK "); ok {
					if v, err := strconv.ParseInt(s, 10, 64); err == nil {
						ticks = append(ticks, tick{at: int64(e.Time * 1e9), stamp: v})
					}
				}
			}
		}
		f.Close()
		if len(ticks) == 0 {
			continue
		}
		start := int64(-1 << 62)
		for _, t := range ticks {
			start = max(start, t.stamp-t.at)
		}
		for _, t := range ticks {
			worst = max(worst, time.Duration(start+t.at-t.stamp))
		}
	}
	return worst
}

// residentBytes is pid's resident memory (/proc/PID/statm), 0 when gone.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}
