//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/proctest"
)

// TestRealCLIAccountParkedAtItsLimit: two agents of one account (the same
// real CLI, the same config home: the default account) against a fake
// provider that signals the usage limit the way the CLI's vendor does. The
// third checkpoint request of agent a meets the limit; warden parks a and
// b within a second (account_parked; b's process group stopped), nothing
// reaches the provider from either while the window is open (the ledger:
// only refusals of a), no checkpoint request, no stale alarm, no restart;
// at the reset plus the margin account_resumed, and each carries on the
// way its CLI needs — Claude Code by its own continue (nothing typed for
// it), Codex's model-switch dialog answered `2` at once and `continue`
// typed once at the reset, Gemini CLI's "Keep trying" answered after the
// reset — and each answers a checkpoint request after it. Neither limit
// dialog is reported as a person's. Claude's and Codex's accounts stand at
// 95 % of their window from the start: each agent's warning is one
// limit_approaching, not a park, and Codex's model-switch dialog, which
// opens at 95 %, is kept too.
//
// Each mostly waits: Claude Code for its own continue (up to two minutes
// after the reset), Codex and Gemini CLI for a reset on a whole minute. So
// Claude's run goes beside the other two, which go one after the other
// (six CLIs at once are too many for a 2-core machine); the processes left
// are checked once all are done.
func TestRealCLIAccountParkedAtItsLimit(t *testing.T) {
	useWardenBin(t)
	defer proctest.AssertNone(t)
	t.Run("each", func(t *testing.T) {
		for _, group := range [][]string{{"claude"}, {"codex", "gemini"}} {
			t.Run(strings.Join(group, "+"), func(t *testing.T) {
				t.Parallel()
				for _, cli := range group {
					t.Run(cli, func(t *testing.T) { testRealAccount(t, cli) })
				}
			})
		}
	})
}

// accountEnv seeds the home both agents of cli share and returns the
// environment of agent name: its requests carry the provider's account
// header with its name, so that the ledger tells the agents apart.
func accountEnv(t testing.TB, cli, home, project, url, name string) map[string]string {
	env := seed(t, cli, home, project, url)
	switch cli {
	case "claude": // signed in to claude.ai: the unified limit headers, the status line's rate_limits
		delete(env, "ANTHROPIC_AUTH_TOKEN")
		env["CLAUDE_CODE_OAUTH_TOKEN"] = "fake-oauth-token"
		env["ANTHROPIC_CUSTOM_HEADERS"] = fakeprovider.AccountHeader + ": " + name
	case "gemini":
		env["GEMINI_CLI_CUSTOM_HEADERS"] = fakeprovider.AccountHeader + ":" + name
	case "codex":
		path := filepath.Join(home, ".codex", "config.toml")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		const line = `wire_api = "responses"`
		s := strings.Replace(string(b), line, line+"\n"+`env_http_headers = { "`+fakeprovider.AccountHeader+`" = "FAKE_ACCOUNT" }`, 1)
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		env["FAKE_ACCOUNT"] = name
	}
	env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
	return env
}

// limitReset is when a window opened at now resets: a few seconds away for
// a CLI that reports it to the second (Claude Code's status line); for one
// that shows a clock to the minute, rounded down (Codex's banner, Gemini
// CLI's dialog), 50 s into the first minute that leaves at least 5 s, so
// that warden, which waits for the end of the minute shown plus the
// margin, resumes the account 12 s after the reset.
func limitReset(cli string, now time.Time) time.Time {
	if cli == "claude" {
		return now.Add(6 * time.Second).Truncate(time.Second) // resets_at is whole seconds
	}
	r := now.Truncate(time.Minute).Add(50 * time.Second)
	if r.Before(now.Add(5 * time.Second)) {
		r = r.Add(time.Minute)
	}
	return r
}

// accountRig is the provider's side of the test: a's third checkpoint
// request opens a limit window for a (the answers before come at 95 %
// where the account stands there: Claude Code shows its warning from its
// second answer on); once the account is parked the test
// opens it for every agent (b's request in flight as a met the limit would
// otherwise meet it too, and b would show the limit itself).
type accountRig struct {
	cli string
	srv *fakeprovider.Server

	mu     sync.Mutex
	window *fakeprovider.LimitWindow
	hit    fakeprovider.Request // a's turn that met the limit
	asked  int                  // a's checkpoint requests so far
}

func (g *accountRig) decide(r fakeprovider.Request) fakeprovider.Answer {
	task := "T1"
	if r.Account == "b" {
		task = "T2"
	}
	if !strings.Contains(r.Prompt, "CHECKPOINT REQUEST: "+task) {
		return fakeprovider.Answer{Text: "ready", InputTokens: 2000}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Account == "a" {
		g.asked++
	}
	if r.Account == "a" && g.asked == 3 && g.window == nil {
		reset := limitReset(g.cli, r.At)
		g.window = g.srv.AddLimitWindow(&fakeprovider.LimitWindow{From: r.At, For: reset.Sub(r.At), ResetAt: reset, Account: "a"})
		g.hit = r
		return fakeprovider.Answer{Limit: &fakeprovider.Limit{Kind: fakeprovider.UsageLimit, ResetAt: reset}}
	}
	return fakeprovider.Answer{InputTokens: 3000, Text: "CHECKPOINT: " + task + "\nStatus: implementing\nCompleted:\n" +
		"- parsed the config\nRemaining:\n- write tests\nFiles Modified: a.go\nEstimated Progress: 40%\n"}
}

func testRealAccount(t *testing.T, cli string) {
	bin := realCLI(t, cli)
	g := &accountRig{cli: cli}
	g.srv = fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: g.decide})
	defer g.srv.Close()
	if cli != "gemini" { // the account is at 95 % of its 5-hour window from the start (the Gemini API says nothing)
		g.srv.SetQuota("", &fakeprovider.Quota{UsedPercent: 95, ResetAt: time.Now().Add(2 * time.Hour)})
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	cfg := writeTeamB(t, `checkpoint_interval = "3s"
checkpoint_timeout = "60s"
stale_warning = "15s"
stale_failure = "30s"
shutdown_timeout = "10s"
usage_limit_wait = "5m"
[[task]]
id = "T1"
agent = "a"
prompt = "Say ready."
[[task]]
id = "T2"
agent = "b"
prompt = "Say ready."
`, fakeAgent{name: "a", mode: "unused"}, fakeAgent{name: "b", mode: "unused"})
	for i, name := range []string{"a", "b"} {
		ag := &cfg.Agents[i]
		env := accountEnv(t, cli, home, project, g.srv.URL(), name)
		env["WARDEN_TEST_OWNER"] = ag.Env["WARDEN_TEST_OWNER"]
		ag.Command, ag.Profile, ag.Dir, ag.Env = []string{bin}, cli, project, env
	}
	team, out, wait := startTeamWith(t, cfg, func(team *Team) { team.deps.Timers.UsageLimitMargin = 2 * time.Second })
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { team.Force(); wait() }) }
	defer stop()

	// b's group is watched from before the park: the park is at the first
	// sign; account_parked may be said seconds later (it waits for a sign
	// with the reset) and says when the park began (since).
	var parked map[string]any
	var bStopped time.Time
	waitForD(t, "b running", 60*time.Second, func() bool { return team.agents[1].Status().Pid > 0 })
	bPid := team.agents[1].Status().Pid
	waitForD(t, "account_parked and b's process group stopped", 120*time.Second, func() bool {
		if bStopped.IsZero() && procState(bPid) == 'T' {
			bStopped = time.Now()
		}
		if parked == nil {
			parked = firstEvent(eventsOf(t, cfg), event.AccountParked)
		}
		return parked != nil && !bStopped.IsZero()
	})
	parkedAt, err := time.Parse(time.RFC3339Nano, fmt.Sprint(parked["since"]))
	if err != nil {
		t.Fatalf("account_parked's since: %v", err)
	}
	// a is parked alone at its own word (Claude Code's hook), the account
	// once its screen proves it (issue 33): b is stopped from the proof on.
	provedAt, err := time.Parse(time.RFC3339Nano, fmt.Sprint(parked["proved"]))
	if err != nil {
		t.Fatalf("account_parked's proved: %v", err)
	}
	if lag := bStopped.Sub(provedAt); lag > time.Second {
		t.Errorf("b stopped %v after the account's park was proved, want within 1 s", lag)
	}
	if said := eventTime(t, parked).Sub(parkedAt); said > 6*time.Second {
		t.Errorf("account_parked said %v after the park began, want within sayWait", said)
	}
	g.mu.Lock()
	reset, hit := g.window.ResetAt, g.hit
	g.mu.Unlock()
	all := g.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: time.Until(reset), ResetAt: reset})
	t.Logf("limit met at %s, a parked %.2f s later, the account %.2f s later (source %v, proof %v), reset %s", hit.At.Format("15:04:05.000"),
		parkedAt.Sub(hit.At).Seconds(), provedAt.Sub(hit.At).Seconds(), parked["source"], parked["proof"], reset.Format("15:04:05"))
	// The refusal, the CLI drawing it, warden reading it twice (a banner)
	// or its hook, then the park: a few seconds at most on a loaded machine.
	if lag := provedAt.Sub(hit.At); lag > 4*time.Second {
		t.Errorf("account parked %v after the refused request", lag)
	}

	var resumed map[string]any
	waitForD(t, "account_resumed", time.Until(reset)+40*time.Second, func() bool {
		resumed = firstEvent(eventsOf(t, cfg), event.AccountResumed)
		return resumed != nil
	})
	resumedAt := eventTime(t, resumed)
	var again fakeprovider.Request // a's first turn answered after the reset
	waitForD(t, "a's turn answered after the reset", 150*time.Second, func() bool {
		for _, r := range g.srv.Ledger().Of("a").Between(reset, time.Now().Add(time.Hour)) {
			if !r.Side && r.Status == 200 {
				again = r
				return true
			}
		}
		return false
	})
	for _, name := range []string{"a", "b"} {
		waitForD(t, name+"'s checkpoint after the reset", 60*time.Second, func() bool {
			return eventsBetween(t, eventsOf(t, cfg), event.CheckpointReceived, name, resumedAt, time.Now()) > 0
		})
	}
	time.Sleep(3 * time.Second) // a second continue would come now
	stop()

	evs := eventsOf(t, cfg)
	t.Logf("account_resumed %.1f s after the reset; a went on %.1f s after it with %q",
		resumedAt.Sub(reset).Seconds(), again.At.Sub(reset).Seconds(), again.Prompt)
	if parked["account"] == "" || strings.Join(anyStrings(parked["agents"]), ",") != "a,b" || parked["resets_at"] == "" {
		t.Errorf("account_parked %v", parked)
	}
	if resumedAt.Before(reset) {
		t.Errorf("account_resumed at %s, before the reset %s", resumedAt, reset)
	}
	if n, m := countEvents(evs, event.AccountParked, ""), countEvents(evs, event.AccountResumed, ""); n != 1 || m != 1 {
		t.Errorf("%d account_parked, %d account_resumed: want one each", n, m)
	}
	// Between the park and the reset nothing of the account reached the
	// provider but refusals of a; and nothing of b once its group was seen
	// stopped (a request b's CLI sent in the moment between the park and
	// its SIGSTOP — 40 ms on a loaded machine — is on its way already).
	during := g.srv.Ledger().Between(parkedAt, reset)
	if reqs := g.srv.Ledger().Between(bStopped, reset).Of("b"); len(reqs) != 0 {
		t.Errorf("b made %d requests while stopped, the first at %s", len(reqs), reqs[0].At.Format("15:04:05.000"))
	}
	t.Logf("b stopped %.3f s after the park began; %d request of b's reached the provider between the two",
		bStopped.Sub(parkedAt).Seconds(), len(g.srv.Ledger().Between(parkedAt, bStopped).Of("b")))
	for _, r := range during.Of("a") {
		if !r.Refused {
			t.Errorf("a's request answered while parked: %q", r.Prompt)
		}
	}
	t.Logf("requests refused in the window besides a's turn: %d of a, %d of the account after the park",
		g.window.Refused(), all.Refused())
	for _, name := range []string{"a", "b"} {
		// b's park comes a moment after a's, when the account's word
		// reaches it: a request b's session typed in that moment (8 ms
		// after a's park, 36 ms before b's SIGSTOP, in a whole run) was on
		// its way already.
		from := parkedAt
		if name == "b" {
			from = bStopped
		}
		if n := eventsBetween(t, evs, event.CheckpointRequested, name, from, resumedAt); n != 0 {
			t.Errorf("%s was asked for %d checkpoints while parked", name, n)
		}
		for _, bad := range []string{event.AgentStale, event.AgentWarned} { // the park is longer than stale_failure
			if n := eventsBetween(t, evs, bad, name, parkedAt, resumedAt); n != 0 {
				t.Errorf("%s: %d %s while parked", name, n, bad)
			}
		}
		for _, bad := range []string{event.AgentStalled, event.AgentRestarted, event.AgentWaiting} {
			if n := countEvents(evs, bad, name); n != 0 {
				t.Errorf("%s: %d %s", name, n, bad)
			}
		}
		if n := countEvents(evs, event.AgentStarted, name); n != 1 {
			t.Errorf("%s started %d times", name, n)
		}
	}
	// One resume of a, never two: warden's continue and the CLI's own that
	// reached the model (Gemini CLI's Keep trying resends the turn instead).
	var continues []string
	for _, r := range g.srv.Ledger().Of("a").Between(reset, time.Now()) {
		if !r.Side && r.Status == 200 && (strings.TrimSpace(r.Prompt) == "continue" || strings.Contains(r.Prompt, "usage limit has reset")) {
			continues = append(continues, r.Prompt)
		}
	}
	if want := map[bool]int{true: 0, false: 1}[cli == "gemini"]; len(continues) != want {
		t.Errorf("a was continued %d times, want %d: %q", len(continues), want, continues)
	}
	// Before the limit, at 95 %: Claude's and Codex's warnings are
	// limit_approaching, once a notice, never a park; Codex's model-switch
	// dialog (opened at 95 %) is kept.
	if cli != "gemini" {
		for _, name := range []string{"a", "b"} {
			if n := eventsBetween(t, evs, event.LimitApproaching, name, time.Time{}, parkedAt); n != 1 {
				t.Errorf("%s: %d limit_approaching before the limit, want 1", name, n)
			}
		}
	}
	answered := map[string]map[string]any{} // each agent's first dialog_answered
	for _, e := range evs {
		if name, _ := e["agent"].(string); e["event"] == event.DialogAnswered && answered[name] == nil {
			answered[name] = e
		}
	}
	switch cli {
	case "claude": // its own continue; warden typed nothing
		if !strings.Contains(again.Prompt, "usage limit has reset") {
			t.Errorf("Claude Code went on with %q, not its own continue", again.Prompt)
		}
	case "codex": // `2` at once (here at 95 %: the dialog opens once a session), `continue` at the reset
		for _, name := range []string{"a", "b"} { // at 95 %, before the limit
			if e := answered[name]; e == nil || e["by"] != "warden" || e["kind"] != "limit" {
				t.Errorf("%s: dialog_answered %v", name, e)
			}
		}
		if strings.TrimSpace(again.Prompt) != "continue" {
			t.Errorf("Codex went on with %q, want warden's continue", again.Prompt)
		}
	case "gemini": // Keep trying after the reset: the refused turn again
		if e := answered["a"]; e == nil || e["by"] != "warden" || eventTime(t, e).Before(reset) || answered["b"] != nil {
			t.Errorf("dialog_answered %v (reset %s)", answered, reset)
		}
		if !strings.Contains(again.Prompt, "CHECKPOINT REQUEST: T1") {
			t.Errorf("Gemini CLI went on with %q, want its refused turn", again.Prompt)
		}
	}
	if !strings.Contains(out.String(), "is at its usage limit") || !strings.Contains(out.String(), "a, b parked until") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
