//go:build e2e

package supervisor

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
)

// runTeam runs a team to its end (or stops it after limit) and returns the
// result and warden's stdout.
func runTeam(t *testing.T, cfg *config.Team, limit time.Duration) (Result, string, *Team) {
	t.Helper()
	return runTeamWith(t, cfg, limit, nil)
}

// resumeRun begins a team as `warden run --resume` does.
func resumeRun(team *Team) error {
	_, err := team.Begin(StartResume)
	return err
}

// runTeamWith is runTeam with a step (e.g. resumeRun) between New and Run.
func runTeamWith(t *testing.T, cfg *config.Team, limit time.Duration, prepare func(*Team) error) (Result, string, *Team) {
	t.Helper()
	out := &syncBuffer{}
	team, err := New(testLogger(t), cfg, clock.Real{}, out)
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		if err := prepare(team); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	select {
	case res := <-done:
		return res, out.String(), team
	case <-time.After(limit):
		team.Stop(true)
		res := <-done
		return res, out.String(), team
	}
}

const fastTimers = `checkpoint_interval = "150ms"
checkpoint_timeout = "2s"
shutdown_timeout = "2s"
stale_warning = "1m"
stale_failure = "2m"
`

func TestTaskChainRunsInOrderWithCheckpoints(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`
[[task]]
id = "T1"
title = "first"
prompt = "Do the first thing."
[[task]]
id = "T2"
title = "second"
prompt = "Do the second thing."
blocked_by = ["T1"]
[[task]]
id = "T3"
title = "third"
prompt = "Do the third thing."
blocked_by = ["T2"]
`, fakeAgent{name: "w1", mode: "worker:steps=2"}, fakeAgent{name: "w2", mode: "worker:steps=2"})
	res, stdout, _ := runTeamWith(t, cfg, 60*time.Second, func(team *Team) error {
		team.dashboardEvery = 100 * time.Millisecond
		return nil
	})
	// T3 waits for T2 (blocked_by): "waiting", not "blocked".
	if !strings.Contains(stdout, "agents active 1/2, tasks done 1/3, available 0, blocked 0, waiting 1, pending verification 0") &&
		!strings.Contains(stdout, "agents active 1/2, tasks done 2/3, available 0, blocked 0, waiting 0, pending verification 0") {
		t.Errorf("no periodic dashboard on stdout:\n%s", stdout)
	}
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d, tasks %+v\nstdout:\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	var order []string
	for _, e := range eventsOf(t, cfg) {
		if e["event"] == event.TaskCompleted {
			order = append(order, e["task"].(string))
		}
	}
	if strings.Join(order, ",") != "T1,T2,T3" {
		t.Fatalf("completion order %v, want T1,T2,T3", order)
	}
	for _, line := range []string{"CHECKPOINT: T1 - implementing (50%)", "CHECKPOINT: T1 - complete (100%)", "CHECKPOINT: T3 - complete (100%)"} {
		if !strings.Contains(stdout, line+"  [") { // the line, then when and whose (stdout is no terminal)
			t.Errorf("stdout lacks %q:\n%s", line, stdout)
		}
	}
	// Each task's record was archived on completion, with the DESIGN §5 fields.
	for _, id := range []string{"T1", "T2", "T3"} {
		matches, _ := filepath.Glob(filepath.Join(cfg.StateDir, "checkpoints", "*-"+id+"-complete.json"))
		if len(matches) != 1 {
			t.Fatalf("%s: archived checkpoints %v", id, matches)
		}
		data, _ := os.ReadFile(matches[0])
		for _, field := range []string{`"checkpoint_id"`, `"session_id"`, `"attempt": 1`, `"trigger": "request"`,
			`"status": "complete"`, `"progress_percent": 100`, `"completed_at": "`, `"resumable": false`, `"files_modified"`} {
			if !bytes.Contains(data, []byte(field)) {
				t.Errorf("%s lacks %s:\n%s", matches[0], field, data)
			}
		}
	}
	status, err := os.ReadFile(filepath.Join(cfg.StateDir, "STATUS.md"))
	if err != nil || !bytes.Contains(status, []byte("| Agent | Task | Progress | Last Update | Status |")) ||
		!bytes.Contains(status, []byte("| T3 | third | complete |")) {
		t.Errorf("STATUS.md:\n%s (%v)", status, err)
	}
}

func TestCrashedAgentResumesFromItsCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`
[[task]]
id = "T1"
title = "resumable"
prompt = "Build it in three steps."
`, fakeAgent{name: "w1", mode: "worker:steps=3:crash=1", restart: "on-failure", maxRestarts: 3})
	res, stdout, team := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d: %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	for _, want := range []string{
		"RESUME-SEEN: You are resuming task T1 (attempt 2). The previous session reached 33%",
		"RESUME-SEEN: Resume instructions from the previous session: continue with step 2",
		"RESUME-SEEN: * step 2", "RESUME-SEEN: * step 3", // its Remaining
	} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("the restarted session was not told %q; log:\n%s", want, log)
		}
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.AgentStarted, "w1") != 2 || countEvents(evs, event.AgentRestarted, "w1") != 1 {
		t.Errorf("want one crash and one restart: %v", evs)
	}
	data, _ := os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1-complete.json"))
	if !bytes.Contains(data, []byte(`"attempt": 2`)) {
		t.Errorf("final checkpoint not from attempt 2:\n%s", data)
	}
}

func TestGarbageAndPlaceholdersAreRejected(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=1:bad=1"})
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	evs := eventsOf(t, cfg)
	var reasons []string
	for _, e := range evs {
		if e["event"] != event.CheckpointRejected {
			continue
		}
		// The tty echoes the prompt while the agent already prints "working
		// on it": a cut of the echoed template is never rejected (CI once
		// saw "Files Modified: <working on it"; protocol's
		// TestLinesEchoCutByTheProgramNeverCounts tries every cut).
		reasons = append(reasons, e["reason"].(string))
	}
	if len(reasons) != 2 || !strings.Contains(reasons[0], `"250%"`) || !strings.Contains(reasons[1], `"[N]%"`) {
		t.Fatalf("rejections %q, want 2 (250%% and the [N]%% placeholder)", reasons)
	}
	if n := countEvents(evs, event.CheckpointReceived, "w1"); n != 1 {
		t.Errorf("%d records, want exactly the one valid block", n)
	}
}

func TestSilentAgentTimesOutButKeepsRunning(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "100ms"
checkpoint_timeout = "200ms"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:silent=1"})
	res, stdout, _ := runTeam(t, cfg, 5*time.Second) // the plain profile waits 1.5 s of quiet before a request
	if !res.Stopped {
		t.Fatalf("the silent agent ended the team: %+v", res)
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.CheckpointTimeout, "w1") == 0 || countEvents(evs, event.CheckpointRequested, "w1") == 0 {
		t.Fatalf("no request/timeout: %v", evs)
	}
	if countEvents(evs, event.AgentStarted, "w1") != 1 {
		t.Errorf("a late answer from a running agent restarted it: %v", evs)
	}
	if !strings.Contains(stdout, "WARNING: w1 did not answer") {
		t.Errorf("no warning on stdout:\n%s", stdout)
	}
}

// defaultRatios are the defaults' timers (interval 5m, timeout 30s, stale
// 10m / 30m) scaled down 300 times: a test with one timer set far apart
// would hide what the defaults do.
const defaultRatios = `checkpoint_interval = "1s"
checkpoint_timeout = "100ms"
stale_warning = "2s"
stale_failure = "6s"
shutdown_timeout = "1s"
`

// A hung plain agent (it reads its input and prints nothing: the tty's echo
// of warden's requests is its only output) is found under the default
// ratios: the echo never counts as output, so it is stale, then warned (a
// line typed asking for a checkpoint), then stalled and restarted.
func TestHungAgentIsStaleThenWarnedThenStalled(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, defaultRatios+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:silent=1", restart: "on-failure", maxRestarts: 5})
	_, stdout, team := runTeam(t, cfg, 9*time.Second)
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.CheckpointRequested, "w1") == 0 {
		t.Fatalf("never asked: %v", evs)
	}
	stale := firstEvent(evs, event.AgentStale)
	if stale == nil || countEvents(evs, event.AgentWarned, "w1") == 0 || countEvents(evs, event.AgentStalled, "w1") == 0 {
		t.Fatalf("no stale/warned/stalled events: %v", evs)
	}
	if countEvents(evs, event.AgentStarted, "w1") < 2 {
		t.Errorf("the stalled agent was not restarted: %v", evs)
	}
	if stale["why"] != "silent" {
		t.Errorf("agent_stale says %v: the echo of warden's requests counted as the agent's output", stale["why"])
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log), "warden has seen no progress from you for 6s") {
		t.Errorf("the stuck warning was not typed to the agent:\n%s", log)
	}
	if !strings.Contains(stdout, "WARNING: w1 shows no progress for 6s") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// An agent that keeps printing but never answers is stale all the same:
// checkpoint age is a signal of its own.
func TestChattyAgentWithoutCheckpointsIsStale(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, defaultRatios+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:chatty=1"})
	_, stdout, _ := runTeam(t, cfg, 4*time.Second)
	e := firstEvent(eventsOf(t, cfg), event.AgentStale)
	if e == nil || e["why"] != "no_checkpoint" {
		t.Fatalf("agent_stale %v", e)
	}
	if !strings.Contains(stdout, "WARNING: w1 has shown no checkpoint for 2s on T1") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestFailingVerifySendsTheTaskBackWithItsOutput(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	flag := filepath.Join(dir, "fixed.flag")
	cfg := writeTeam(t, fastTimers+`
[[task]]
id = "T1"
prompt = "Make the check pass."
verify = ["sh", "-c", "test -f `+flag+` || { echo 'missing fixed.flag'; exit 7; }"]
`, fakeAgent{name: "w1", mode: "worker:steps=1:done=" + flag})
	res, stdout, team := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d: %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.TaskVerifyFailed, "w1") != 1 || countEvents(evs, event.TaskCompleted, "w1") != 1 {
		t.Fatalf("want one failed verify then completion: %v", evs)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !bytes.Contains(log, []byte("VERIFY FAILED for T1")) || !bytes.Contains(log, []byte("missing fixed.flag")) {
		t.Errorf("the agent was not given the verify output:\n%s", log)
	}
	if res.Tasks[0].Verify != "passed" {
		t.Errorf("verify result %q", res.Tasks[0].Verify)
	}
}

func TestTUIDrawnAnswersAreRecordedOnce(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "1s"
checkpoint_timeout = "3s"
shutdown_timeout = "1s"
[[task]]
id = "T7"
prompt = "Answer like a TUI."
`, fakeAgent{name: "tui", mode: "tui-answer", profile: "claude"})
	// 12 s: at least two answers drawn and read on a loaded machine (in
	// 6 s one was, of three requests, while the whole suite ran).
	res, stdout, _ := runTeam(t, cfg, 12*time.Second)
	if !res.Stopped {
		t.Fatalf("result %+v", res)
	}
	evs := eventsOf(t, cfg)
	requests, records := countEvents(evs, event.CheckpointRequested, "tui"), countEvents(evs, event.CheckpointReceived, "tui")
	// Each answer is recorded exactly once, although the fake TUI repaints
	// it ten times (a request typed just before the stop may go unanswered).
	if records < 2 || records > requests {
		t.Fatalf("%d requests, %d records\n%s", requests, records, stdout)
	}
	// Every answer (its own progress) is printed once. Off a terminal a
	// line ends with the agent and the time it was printed: "  [tui
	// 2026-11-26 02:26:48]". (Beside a whole run the first answer was
	// once never read: the next request came before the screen, repainted
	// without a pause, was quiet — a block on the screen when a request is
	// typed is not that request's answer. Not fixed yet; so any answer may
	// be missing here, none may be printed twice.)
	seen := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^(CHECKPOINT: T7 - implementing \(\d+%\))(  \[tui [^\]]+\])?$`).FindAllStringSubmatch(stdout, -1) {
		seen[m[1]]++
	}
	for line, n := range seen {
		if n != 1 {
			t.Errorf("%q printed %d times, want once\n%s", line, n, stdout)
		}
	}
	if len(seen) != records {
		t.Errorf("%d answers printed, %d recorded\n%s", len(seen), records, stdout)
	}
	if n := countEvents(evs, event.CheckpointRejected, "tui"); n != 0 {
		t.Errorf("%d rejections of TUI-drawn answers", n)
	}
}
