//go:build e2e

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// stopTeam writes the stop benchmark's team: 10 agents, 5 of them ignoring
// SIGTERM and SIGINT, some leaving grandchildren, one grandchild escaped
// with setsid; shutdown_timeout = "2s".
func stopTeam(b *testing.B) string {
	modes := []string{
		"idle", "idle", "grandchild:idle:idle", "lines:1000000", "crash:1h:1",
		"ignore", "ignore", "grandchild:ignore:idle", "grandchild:ignore:exit", "escape:ignore:idle",
	}
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var body strings.Builder
	body.WriteString("name = \"stop-bench\"\nshutdown_timeout = \"2s\"\n")
	for i, m := range modes {
		argv := fakeagent.Command(m)
		fmt.Fprintf(&body, "[[agent]]\nname = \"a%d\"\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q }\n",
			i, argv[0], argv[1], fakeagent.EnvMode, m, fakeagent.EnvOwner, owner)
	}
	p := filepath.Join(b.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(body.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkStop measures, from SIGTERM to warden, the time until warden has
// exited and no process of the team is left (target: within 2.05 s with
// shutdown_timeout = 2s).
func BenchmarkStop(b *testing.B) {
	var took []time.Duration
	for i := 0; i < b.N; i++ {
		team := stopTeam(b)
		cmd, _ := startWardenB(b, team, 10)
		t0 := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		for len(proctest.Leftovers()) > 0 {
			if time.Since(t0) > 10*time.Second {
				b.Fatalf("survivors: %v", proctest.Leftovers())
			}
			time.Sleep(time.Millisecond)
		}
		took = append(took, time.Since(t0))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(took[len(took)/2].Seconds(), "median-stop-s")
	b.ReportMetric(took[len(took)-1].Seconds(), "max-stop-s")
	b.ReportMetric(float64(len(proctest.Leftovers())), "survivors")
}

// startWardenB starts warden run and waits until n agents have started.
func startWardenB(b *testing.B, team string, n int) (*exec.Cmd, struct{}) {
	cmd := warden("run", team)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	events := filepath.Join(filepath.Dir(team), ".warden", "events.jsonl")
	for i := 0; i < 1000; i++ {
		data, _ := os.ReadFile(events)
		if strings.Count(string(data), "agent_started") >= n {
			time.Sleep(300 * time.Millisecond) // handlers installed, grandchildren started
			return cmd, struct{}{}
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	b.Fatal("team did not start")
	return nil, struct{}{}
}
