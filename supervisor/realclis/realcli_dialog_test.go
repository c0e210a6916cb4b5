//go:build e2e

package realclis

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/proctest"
	"github.com/wardenhq/warden/testrig/teamtest"
)

// dialogCLI is one real CLI set up to ask for a shell command's approval.
type dialogCLI struct {
	name, cli string
	args      []string          // added to the CLI's command
	env       map[string]string // added to the CLI's environment
	// channel: warden reads the CLI's app-server beside its screen
	// (Codex), so that agent_waiting comes from the request itself.
	channel bool
}

var dialogCLIs = []dialogCLI{
	{"claude-default", "claude", []string{"--permission-mode", "default"}, nil, false}, // "1. Yes" preselected
	{"claude-auto", "claude", nil, nil, false},                                         // the auto-mode explainer, then "No" preselected
	{"codex", "codex", nil, nil, true},                                                 // "1. Yes, proceed" preselected
	{"gemini", "gemini", nil, nil, false},                                              // "1. Allow once" preselected
	// OpenCode asks nothing by default; its permission config makes bash
	// ask: "Allow once" preselected.
	{"opencode", "opencode", nil, map[string]string{"OPENCODE_PERMISSION": `{"bash":"ask"}`}, false},
	// Qwen Code's default auto mode lets its model classify each call;
	// its default approval mode asks: "1. Yes, allow once" preselected.
	{"qwen-default", "qwen", []string{"--approval-mode", "default"}, nil, false},
	// Copilot asks about the command's URL first: "1. Yes" preselected.
	{"copilot", "copilot", nil, nil, false},
}

// probeCommand leaves fetched.txt behind if it ever runs.
const probeCommand = "curl -s http://127.0.0.1:9/probe > fetched.txt"

// dialogRun is one real CLI under warden whose first turn is a tool call
// that draws the CLI's approval dialog.
type dialogRun struct {
	srv     *fakeprovider.Server
	project string
	mu      sync.Mutex
	turns   []time.Time // when each main (not side) request reached the model
	asked   time.Time   // when the tool call was sent
	// think is how long the model takes to send its tool call. A real
	// provider takes a second or more; this one answers at once, and on a
	// loaded machine Codex raised its approval before warden, joining the
	// thread at its first turn, was subscribed to it (a whole run).
	think time.Duration
}

func (r *dialogRun) decide(req fakeprovider.Request) fakeprovider.Answer {
	if r.think > 0 && strings.Contains(req.Prompt, "Create the probe file") {
		r.mu.Lock()
		first := r.asked.IsZero()
		r.mu.Unlock()
		if first {
			time.Sleep(r.think)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns = append(r.turns, time.Now())
	switch {
	case strings.Contains(req.Prompt, "Create the probe file") && r.asked.IsZero():
		r.asked = time.Now()
		return fakeprovider.Answer{Tool: &fakeprovider.ToolCall{Command: probeCommand, Description: "Fetch the probe page into fetched.txt"}}
	case strings.Contains(req.Prompt, "CHECKPOINT REQUEST: T1"):
		return fakeprovider.Answer{Text: "CHECKPOINT: T1\nStatus: blocked\nCompleted:\n- nothing yet\nRemaining:\n- fetch the probe\n" +
			"Files Modified: none\nEstimated Progress: 10%\nBlockers:\n- the fetch was denied\n"}
	}
	return fakeprovider.Answer{Text: "Understood, going on without it."}
}

// turnsBetween counts the main requests that reached the model in [from, to].
func (r *dialogRun) turnsBetween(from, to time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, at := range r.turns {
		if !at.Before(from) && !at.After(to) {
			n++
		}
	}
	return n
}

func startDialogRun(t testing.TB, c dialogCLI, header string) (*dialogRun, *supervisor.Team, *teamtest.Buffer, func() supervisor.Result, string) {
	bin := realCLI(t, c.cli)
	warden, err := buildWarden()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("WARDEN_BIN") != warden { // a parallel subtest's parent set it (wardenForSubtests)
		t.Setenv("WARDEN_BIN", warden)
	}
	r := &dialogRun{}
	if c.channel {
		r.think = time.Second
	}
	r.srv = fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: r.decide})
	t.Cleanup(r.srv.Close)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	r.project = filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(r.project, 0o700)
	env := seed(t, c.cli, home, r.project, r.srv.URL())
	cfg := teamtest.WriteTeam(t, header+`
[[task]]
id = "T1"
prompt = "Create the probe file."
`, teamtest.Agent{Name: c.cli, Mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	for k, v := range c.env {
		env[k] = v
	}
	a.Command, a.Profile, a.Dir, a.Env = append([]string{bin}, c.args...), c.cli, r.project, env
	if c.cli == "codex" && !c.channel {
		a.Channel = config.ChannelScreen
	}
	team, out, wait := startTeamCfg(t, cfg)
	return r, team, out, wait, cfg.StateDir
}

// dialogHeader scales the timers to a test; with on_dialog = "wait",
// stale_failure is shorter than TestRealCLIDialogWaits's wait, so a waiting
// agent treated as silent would be stalled and restarted. 20 s: a real
// CLI's start and first turn take longer than 10 s on a loaded machine
// (OpenCode was restarted twice before its first turn with 10 s). A denied
// dialog ends at dialog_timeout, and there stale_failure is 90 s: beside a
// whole test run OpenCode's start and first turn took over 30 s, and beside
// a CPU burner on both cores (scripts/dialogs-under-load.sh, load 15–20)
// OpenCode drew its input prompt only after a minute — with 45 s it was
// restarted before its dialog, again and again. What the tests check of a
// dialog is unchanged: stale_warning stays 12 s, and no stale alarm may come
// while the dialog waits.
func dialogHeader(on, timeout string) string {
	stale := "20s"
	if on == "deny" {
		stale = "90s"
	}
	return `checkpoint_interval = "3s"
checkpoint_timeout = "20s"
stale_warning = "12s"
stale_failure = "` + stale + `"
shutdown_timeout = "10s"
on_dialog = "` + on + `"
dialog_timeout = "` + timeout + `"`
}

// Each real CLI draws its approval dialog; with on_dialog = "deny" warden
// says the agent waits within 5 s, types nothing for the whole
// dialog_timeout (no request reaches the model), never calls it stale, then
// denies it — the command never runs — and the agent carries on: it
// answers a checkpoint request afterwards.
func TestRealCLIDialogDenied(t *testing.T) {
	wardenForSubtests(t)
	defer proctest.AssertNone(t) // once every CLI's subtest is done
	t.Run("each", func(t *testing.T) {
		for _, c := range dialogCLIs {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel() // two at once (-parallel is GOMAXPROCS)
				r, team, out, wait, stateDir := startDialogRun(t, c, dialogHeader("deny", "12s"))
				evsOf := func() []map[string]any { return readEvents(t, stateDir) }
				// 180 s: OpenCode's start alone took a minute beside a CPU burner.
				waitForD(t, "a checkpoint after the denial", 180*time.Second, func() bool {
					evs := evsOf()
					return countEvents(evs, event.DialogDenied, c.cli) > 0 && countEvents(evs, event.CheckpointReceived, c.cli) > 0
				})
				team.Force()
				wait()
				evs := evsOf()
				waiting := eventTime(t, firstEvent(evs, event.AgentWaiting))
				denied := eventTime(t, firstEvent(evs, event.DialogDenied))
				checkChannelWaiting(t, c, firstEvent(evs, event.AgentWaiting))
				// 5 s alone; 10 s beside a whole test run, where OpenCode
				// took 5.8 s (its start 20 s, a request being typed then).
				if d := waiting.Sub(r.asked); d > 10*time.Second {
					t.Errorf("agent_waiting %s after the tool call was sent, want ≤ 10 s", d)
				}
				if d := denied.Sub(waiting); d < 11*time.Second {
					t.Errorf("denied %s after agent_waiting, want dialog_timeout 12s", d)
				}
				n := r.turnsBetween(r.asked.Add(time.Millisecond), denied)
				ran := ranProbe(r.project, "fetched.txt")
				logUnderDialog(t, n, ran)
				if n != 0 {
					t.Errorf("%d requests reached the model while the dialog was open: something was typed into it", n)
				}
				if ran {
					t.Error("the command ran: the dialog was approved")
				}
				for _, ev := range []string{event.AgentStale, event.AgentStalled, event.AgentWarned} {
					if n := countEvents(whileWaiting(evs, c.cli), ev, c.cli); n != 0 {
						t.Errorf("%d %s events", n, ev)
					}
				}
				if countEvents(evs, event.AgentStarted, c.cli) != 1 || countEvents(evs, event.AgentResumed, c.cli) < 1 {
					t.Errorf("events: %v", evs)
				}
				if !strings.Contains(out.String(), "WARNING: "+c.cli+" waits for a person") {
					t.Errorf("stdout:\n%s", out.String())
				}
			})
		}
	})
}

// With on_dialog = "wait" the agent is still waiting past twice
// dialog_timeout and stale_failure: nothing typed, nothing denied, not
// stale, not restarted. Each CLI's dialog is found, and told from a turn,
// in TestRealCLIDialogDenied; the wait that follows is warden's alone, the
// same for every profile: it runs here with Claude Code (the screen and its
// PermissionRequest hook), Codex (its app-server) and Gemini CLI (the
// screen and its title) — the three ways a dialog reaches warden — not
// with all six, which took a third of the real-CLI package's minutes.
func TestRealCLIDialogWaits(t *testing.T) {
	wardenForSubtests(t)
	defer proctest.AssertNone(t) // once every CLI's subtest is done
	t.Run("each", func(t *testing.T) {
		for _, c := range []dialogCLI{dialogCLIs[0], dialogCLIs[2], dialogCLIs[3]} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel() // two at once (-parallel is GOMAXPROCS)
				r, team, _, wait, stateDir := startDialogRun(t, c, dialogHeader("wait", "6s"))
				waitForD(t, "agent_waiting", 90*time.Second, func() bool {
					return countEvents(readEvents(t, stateDir), event.AgentWaiting, c.cli) > 0
				})
				time.Sleep(22 * time.Second) // past 2× dialog_timeout and stale_failure
				snap := readSnapshot(t, stateDir)
				team.Force()
				wait()
				evs := readEvents(t, stateDir)
				if snap.Agents[0].State != "waiting" || !strings.Contains(snap.Agents[0].Dialog, "curl") {
					t.Errorf("past 2× dialog_timeout and stale_failure: %+v", snap.Agents[0])
				}
				n := r.turnsBetween(r.asked.Add(time.Millisecond), time.Now())
				ran := ranProbe(r.project, "fetched.txt")
				logUnderDialog(t, n, ran)
				if n != 0 {
					t.Errorf("%d requests reached the model while the dialog was open", n)
				}
				if ran {
					t.Error("the command ran")
				}
				if n := countEvents(evs, event.DialogDenied, c.cli); n != 0 {
					t.Errorf("%d dialog_denied events with on_dialog = wait", n)
				}
				for _, ev := range []string{event.AgentStale, event.AgentStalled, event.AgentWarned} {
					if n := countEvents(whileWaiting(evs, c.cli), ev, c.cli); n != 0 {
						t.Errorf("%d %s events", n, ev)
					}
				}
				if countEvents(evs, event.AgentWaiting, c.cli) != 1 || countEvents(evs, event.AgentStarted, c.cli) != 1 {
					t.Errorf("events: %v", evs)
				}
				checkChannelWaiting(t, c, firstEvent(evs, event.AgentWaiting))
			})
		}
	})
}
