//go:build e2e

package realclis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/internal/teamtest"
	"github.com/wardenhq/warden/supervisor/event"
)

// contextTokens is how many input tokens make 85 % of each CLI's context
// window with the fake provider's model.
var contextTokens = map[string]int{"claude": 850000, "codex": 220000, "gemini": 900000}

// TestRealCLIsThroughWarden runs each real agent CLI as a team agent,
// offline against its fake provider API: its first prompt is submitted, each
// checkpoint request gets one record with the right fields (the answer comes
// on the screen and, for the first three, through the CLI's own hook), and a
// context gauge above the threshold leads to CHECKPOINT COMPLETE and a fresh
// session whose first prompt carries the handoff. OpenCode and Qwen Code
// report no gauge to warden: for them the run ends after three records.
func TestRealCLIsThroughWarden(t *testing.T) {
	realCLIsTwoAtOnce(t, []string{"claude", "codex", "gemini", "opencode", "qwen", "copilot"}, testRealCLI)
}

func testRealCLI(t *testing.T, cli string) {
	bin := realCLI(t, cli)
	// WARDEN_BIN and the leftover check: realCLIsTwoAtOnce, its only caller.

	var mu sync.Mutex
	requests := 0
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		if !strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1") {
			return fakeprovider.Answer{Text: "ready", InputTokens: 2000}
		}
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		tokens := 5000 // the second answer fills the context to 85 %
		if n == 2 {
			tokens = contextTokens[cli]
		}
		return fakeprovider.Answer{InputTokens: tokens, Text: fmt.Sprintf(
			"CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- parsed the config\nRemaining:\n- write tests\n"+
				"Files Modified: a.go, b.go\nEstimated Progress: %d%%\nResume: run go test first\n", 30+10*n)}
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
context_threshold = 80
[[task]]
id = "T1"
title = "real cli"
prompt = "Say ready."
`, teamtest.Agent{Name: cli, Mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["TZ"] = home, "C.UTF-8", "UTC"
	// CI runs set CI=true, and Gemini CLI then refuses to be interactive
	// (exit 42): an agent under warden has a terminal, so it is not "in CI".
	env["CI"] = "false"
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	a.Command, a.Profile, a.Dir, a.Env = []string{bin}, cli, project, env

	_, gauge := contextTokens[cli]
	team, out, wait := startTeamCfg(t, cfg)
	if gauge {
		waitForD(t, "a fresh session after the team checkpoint", 150*time.Second, func() bool {
			for _, r := range srv.Requests() {
				if strings.Contains(r.Prompt, "The team was checkpointed") {
					return true
				}
			}
			return false
		})
	} else {
		waitForD(t, "three checkpoint records", 90*time.Second, func() bool {
			return countEvents(eventsOf(t, cfg), event.CheckpointReceived, cli) >= 3
		})
	}
	team.Force()
	wait()

	evs := eventsOf(t, cfg)
	var first bool
	for _, r := range srv.Requests() {
		first = first || strings.Contains(r.Prompt, "You are running under warden")
	}
	if !first {
		t.Error("the first prompt (the preamble) never reached the model")
	}
	// The protocol also rides outside the messages, where a compaction of
	// the context keeps it (Claude's system prompt, Codex's developer
	// instructions, Gemini's system instruction from its GEMINI.md).
	var lasting bool
	for _, r := range srv.Requests() {
		lasting = lasting || (!r.Side && strings.Contains(systemText(r), "Estimated Progress: [N]%"))
	}
	if !lasting {
		t.Error("the protocol never reached the model outside the messages")
	}
	mu.Lock()
	answered := requests
	mu.Unlock()
	if got := countEvents(evs, event.CheckpointReceived, cli); got < 2 || got > answered {
		t.Errorf("%d checkpoint records for %d answers: want one each", got, answered)
	}
	if gauge && (countEvents(evs, event.ContextThreshold, cli) != 1 || !strings.Contains(out.String(), "\nCHECKPOINT COMPLETE\n")) {
		t.Errorf("the context gauge did not lead to a team checkpoint:\n%s", out.String())
	}
	for _, want := range []string{"CHECKPOINT: T1 - implementing (40%)", "CHECKPOINT: T1 - implementing (50%)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	cp, _ := os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", cli+"-T1.json"))
	for _, field := range []string{`"files_modified": [`, `"a.go"`, `"resume_instructions": "run go test first"`, `"remaining": [`} {
		if !strings.Contains(string(cp), field) {
			t.Errorf("checkpoint lacks %s:\n%s", field, cp)
		}
	}
}

// TestRealClaudeUsageLimitPausesAndResumes: the real Claude Code with an
// API key, whose turn ends on a usage-limit error (a bare HTTP 429 from the
// fake API: no reset time anywhere, no continue of its own). warden parks
// its account (account_parked, no resets_at) — no restart, no stale alarm —
// and when usage_limit_wait is over tells it to continue, once, and the
// agent's next turn reaches the model.
func TestRealClaudeUsageLimitPausesAndResumes(t *testing.T) {
	bin := realCLI(t, "claude")
	warden, err := buildWarden()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_BIN", warden)
	defer proctest.AssertNone(t)

	var limited sync.Once
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		answer := fakeprovider.Answer{Text: "ready"}
		if strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1") {
			limited.Do(func() { // the first checkpoint request hits the limit
				answer = fakeprovider.Answer{Limit: &fakeprovider.Limit{Kind: fakeprovider.UsageLimit, ResetIn: 2 * time.Second}}
			})
		}
		return answer
	}})
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	env := seed(t, "claude", home, project, srv.URL())
	cfg := teamtest.WriteTeam(t, `checkpoint_interval = "3s"
checkpoint_timeout = "60s"
stale_warning = "4s"
stale_failure = "6s"
shutdown_timeout = "10s"
usage_limit_wait = "8s"
[[task]]
id = "T1"
prompt = "Say ready."
`, teamtest.Agent{Name: "claude", Mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["CI"] = home, "C.UTF-8", "false"
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	a.Command, a.Profile, a.Dir, a.Env = []string{bin}, "claude", project, env

	team, out, wait := startTeamCfg(t, cfg)
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { team.Force(); wait() }) }
	defer stop()
	waitForD(t, "the park", 90*time.Second, func() bool { return countEvents(eventsOf(t, cfg), event.AccountParked, "claude") == 1 })
	continues := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasSuffix(strings.TrimSpace(r.Prompt), "continue") {
				n++
			}
		}
		return n
	}
	waitForD(t, "continue reaching the model", 60*time.Second, func() bool { return continues() > 0 })
	time.Sleep(2 * time.Second)
	stop()
	evs := eventsOf(t, cfg)
	if p := firstEvent(evs, event.AccountParked); p["resets_at"] != "" || countEvents(evs, event.AccountResumed, "") != 1 {
		t.Errorf("account_parked %v, %d account_resumed", p, countEvents(evs, event.AccountResumed, ""))
	}
	if n := continues(); n != 1 {
		t.Errorf("continue typed %d times, want once", n)
	}
	// 8 s paused with stale_failure 6 s: neither a stall nor a restart.
	if countEvents(evs, event.AgentStalled, "claude") != 0 || countEvents(evs, event.AgentStarted, "claude") != 1 {
		t.Errorf("the paused agent was treated as stalled or restarted: %v", evs)
	}
	if !strings.Contains(out.String(), "is at its usage limit") || !strings.Contains(out.String(), ": claude parked until") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
