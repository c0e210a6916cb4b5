//go:build e2e

package realclis

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/teamtest"
)

// An agent that stopped working (issue 34), with each real CLI offline
// against the fake provider: its model ends every turn with a question and
// answers every request with the same block, so its checkpoints never
// move. After idle_after (12 s) warden types one nudge at the turn
// boundary, then a second, then says agent_idle once and leaves it alone:
// the times from the last move, and the cap.
func TestRealCLIIdleIsNudgedThenLeftAlone(t *testing.T) {
	realCLIsTwoAtOnce(t, []string{"claude", "codex", "gemini"}, testRealCLIIdle)
}

func testRealCLIIdle(t *testing.T, cli string) {
	bin := realCLI(t, cli)
	var nudgesSeen atomic.Int32
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		switch {
		case strings.Contains(r.Prompt, "your checkpoints have not moved"):
			nudgesSeen.Add(1)
			return fakeprovider.Answer{Text: "Shall I go on with the parser, or wait for you?"}
		case strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1"):
			return fakeprovider.Answer{Text: "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- read the task\n" +
				"Remaining:\n- write the parser\nFiles Modified: none\nEstimated Progress: 10%\n"}
		}
		return fakeprovider.Answer{Text: "Shall I start with the parser, or with its tests?"}
	}})
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	env := seed(t, cli, home, project, srv.URL())
	cfg := teamtest.WriteTeam(t, `checkpoint_interval = "4s"
checkpoint_timeout = "30s"
shutdown_timeout = "10s"
idle_after = "12s"
idle_nudges = 2
[[task]]
id = "T1"
title = "the parser"
prompt = "Write the parser."
`, teamtest.Agent{Name: cli, Mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	a.Command, a.Profile, a.Dir, a.Env = []string{bin}, cli, project, env

	team, out, wait := startTeamCfg(t, cfg)
	waitForD(t, "agent_idle", 150*time.Second, func() bool {
		return countEvents(eventsOf(t, cfg), event.AgentIdle, cli) > 0
	})
	time.Sleep(15 * time.Second) // past another idle_after: nothing more is typed or said
	team.Force()
	wait()

	evs := eventsOf(t, cfg)
	var moved, idleAt time.Time
	var nudgedAt []time.Time
	for _, e := range evs {
		ts, _ := time.Parse(time.RFC3339Nano, str(e["ts"]))
		switch e["event"] {
		case event.CheckpointReceived:
			if moved.IsZero() {
				moved = ts // the first record; none after it moves
			}
		case event.AgentNudged:
			nudgedAt = append(nudgedAt, ts)
		case event.AgentIdle:
			idleAt = ts
		}
	}
	if len(nudgedAt) != 2 || countEvents(evs, event.AgentIdle, cli) != 1 {
		t.Fatalf("%d agent_nudged and %d agent_idle, want 2 and 1:\n%s", len(nudgedAt), countEvents(evs, event.AgentIdle, cli), out.String())
	}
	if n := nudgesSeen.Load(); n != 2 {
		t.Errorf("%d nudges reached the model, want 2", n)
	}
	first, second, idle := nudgedAt[0].Sub(moved), nudgedAt[1].Sub(nudgedAt[0]), idleAt.Sub(nudgedAt[1])
	t.Logf("%s: first nudge %s after the last move, second %s later, agent_idle %s after it", cli,
		first.Round(100*time.Millisecond), second.Round(100*time.Millisecond), idle.Round(100*time.Millisecond))
	for _, d := range []time.Duration{first, second, idle} {
		if d < 11500*time.Millisecond || d > 40*time.Second { // the events' times, a few µs around the timer's
			t.Errorf("a step of %s: want idle_after (12 s) and a turn boundary's wait at most", d)
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
