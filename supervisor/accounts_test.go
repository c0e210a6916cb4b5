//go:build e2e

package supervisor

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// accountTeam is four fake agents whose CLIs report through hooks: a, b
// and d on the account "work" (a's and d's usage window is used up,
// resetting in resetIn seconds: two agents saying so are proof), c on none.
func accountTeam(t *testing.T, header string, resetIn int) *config.Team {
	cfg := writeTeam(t, `checkpoint_interval = "300ms"
checkpoint_timeout = "2s"
stale_warning = "600ms"
stale_failure = "1200ms"
shutdown_timeout = "2s"
`+header+`
[[task]]
id = "T1"
agent = "a"
prompt = "Work."
[[task]]
id = "T2"
agent = "b"
prompt = "Work."
[[task]]
id = "T3"
agent = "c"
prompt = "Work."
[[task]]
id = "T4"
agent = "d"
prompt = "Work."
`, fakeAgent{name: "a", mode: "hooked:limit=" + strconv.Itoa(resetIn)}, fakeAgent{name: "b", mode: "hooked"},
		fakeAgent{name: "c", mode: "hooked"}, fakeAgent{name: "d", mode: "hooked:limit=" + strconv.Itoa(resetIn)})
	cfg.Agents[0].Account, cfg.Agents[1].Account, cfg.Agents[3].Account = "work", "work", "work"
	return cfg
}

// A usage limit two agents of an account report — here a's and d's status
// lines, their 5-hour window used up — parks every agent of the account
// within a second: b's process group is stopped (a CLI mid-turn sends
// nothing more), a (which shows the limit itself and sends nothing) is not;
// neither is asked for a checkpoint, neither goes stale, neither restarts,
// although the park is longer than stale_failure. An agent of no account
// (c) works on. At the reset plus the margin, account_resumed: b is
// continued and asked for one checkpoint, a is told to continue once.
func TestAnAccountIsParkedAndResumedTogether(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := accountTeam(t, "", 3)
	team, out, wait := startTeamWith(t, cfg, func(team *Team) { team.deps.Timers.UsageLimitMargin = 500 * time.Millisecond })
	var parked map[string]any
	waitFor(t, "account_parked", func() bool { parked = firstEvent(eventsOf(t, cfg), event.AccountParked); return parked != nil })
	parkedAt := eventTime(t, parked)
	b := team.agents[1].Status().Pid
	waitFor(t, "b stopped", func() bool { return procState(b) == 'T' })
	if lag := time.Since(parkedAt); lag > time.Second {
		t.Errorf("b stopped %v after account_parked, want within 1 s", lag)
	}
	if a := team.agents[0].Status().Pid; procState(a) == 'T' {
		t.Error("a, which shows its limit itself, was stopped")
	}
	waitFor(t, "state.json's paused_until for a and b", func() bool { // its writes are coalesced
		snap := readSnapshot(t, cfg.StateDir)
		return !snap.Agents[0].PausedUntil.IsZero() && !snap.Agents[1].PausedUntil.IsZero()
	})
	if snap := readSnapshot(t, cfg.StateDir); !snap.Agents[2].PausedUntil.IsZero() {
		t.Errorf("state.json paused_until of c, on no account: %v", snap.Agents[2].PausedUntil)
	}
	var resumed map[string]any
	waitForD(t, "account_resumed", 10*time.Second, func() bool {
		resumed = firstEvent(eventsOf(t, cfg), event.AccountResumed)
		return resumed != nil
	})
	resumedAt := eventTime(t, resumed)
	waitFor(t, "b asked and answering after the reset", func() bool {
		return eventsBetween(t, eventsOf(t, cfg), event.CheckpointReceived, "b", resumedAt, time.Now()) > 0
	})
	waitFor(t, "a told to continue", func() bool {
		log, _ := os.ReadFile(team.dir.AgentLog("a"))
		return strings.Contains(string(log), "CONTINUED")
	})
	team.Force()
	wait()

	evs := eventsOf(t, cfg)
	if parked["account"] != "work" || parked["source"] != "status_line" || parked["resets_at"] == "" ||
		strings.Join(anyStrings(parked["agents"]), ",") != "a,b,d" || (parked["proof"] != "a and d said so" && parked["proof"] != "d and a said so") {
		t.Errorf("account_parked %v", parked)
	}
	if resumed["account"] != "work" || resumedAt.Before(parkedAt.Add(2*time.Second)) {
		t.Errorf("account_resumed %v, %v after the park", resumed, resumedAt.Sub(parkedAt))
	}
	for _, name := range []string{"a", "b"} {
		if n := eventsBetween(t, evs, event.CheckpointRequested, name, parkedAt, resumedAt); n != 0 {
			t.Errorf("%s was asked for %d checkpoints while parked", name, n)
		}
		for _, bad := range []string{event.AgentStale, event.AgentWarned} { // the park is longer than stale_failure
			if n := eventsBetween(t, evs, bad, name, parkedAt, resumedAt); n != 0 {
				t.Errorf("%s: %d %s while parked", name, n, bad)
			}
		}
		for _, bad := range []string{event.AgentStalled, event.AgentRestarted} {
			if n := countEvents(evs, bad, name); n != 0 {
				t.Errorf("%s: %d %s", name, n, bad)
			}
		}
	}
	if n := eventsBetween(t, evs, event.CheckpointReceived, "c", parkedAt, resumedAt); n == 0 {
		t.Error("c, on no account, was held too")
	}
	log, _ := os.ReadFile(team.dir.AgentLog("a"))
	if n := strings.Count(string(log), "CONTINUED"); n != 1 {
		t.Errorf("a was told to continue %d times", n)
	}
	if !strings.Contains(out.String(), " said so): a, b, d parked until") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// With on_limit = "checkpoint-exit" the account's limit ends the run: a
// team checkpoint (cause usage_limit) with no last request to the parked
// agents, the handoff, and exit 0 although tasks are open — a WARNING names
// the reset; the run ends stopped, for the next `warden run` to carry on.
func TestOnLimitCheckpointExit(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := accountTeam(t, `on_limit = "checkpoint-exit"`, 600)
	team, out, wait := startTeamCfg(t, cfg)
	res := wait()
	evs := eventsOf(t, cfg)
	if code := res.ExitCode(); code != 0 || !res.AtLimit {
		t.Errorf("exit code %d (at limit %v), want 0", code, res.AtLimit)
	}
	if e := firstEvent(evs, event.TeamCheckpointStarted); e == nil || e["cause"] != "usage_limit" {
		t.Errorf("team_checkpoint_started %v", e)
	}
	for _, name := range []string{"a", "b"} {
		if n := countEvents(evs, event.CheckpointRequested, name); n != 0 && firstEvent(evs, event.AccountParked) != nil {
			if e := firstEvent(evs, event.AccountParked); eventsBetween(t, evs, event.CheckpointRequested, name, eventTime(t, e), time.Now()) != 0 {
				t.Errorf("%s was asked for a checkpoint at its limit", name)
			}
		}
	}
	if firstEvent(evs, event.AccountResumed) != nil {
		t.Error("the account was resumed: the run should have ended")
	}
	for _, want := range []string{`WARNING: account work is at its usage limit until `, `on_limit = "checkpoint-exit": team checkpoint, then exit`,
		"\nCHECKPOINT COMPLETE\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if snap := readSnapshot(t, cfg.StateDir); snap.Ended != state.EndedStopped {
		t.Errorf("state.json ended %q, want stopped (the next run carries it on)", snap.Ended)
	}
	_ = team
}

// The forged status line (issue 33): an agent's own tree says its
// five-hour window is used up until tomorrow (resets_at 86000 s away).
// That agent alone is parked — until five hours from now at most, the
// window's length —; the other agent of its account works on, no
// account_parked, and with on_limit = "checkpoint-exit" the run does not
// end. `warden resume --account` (the control socket's resume) lets it go
// at once: account_resumed by a person.
func TestOneAgentsWordParksItAlone(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "300ms"
checkpoint_timeout = "2s"
stale_warning = "600ms"
stale_failure = "1200ms"
shutdown_timeout = "2s"
on_limit = "checkpoint-exit"
[[task]]
id = "T1"
agent = "a"
prompt = "Work."
[[task]]
id = "T2"
agent = "b"
prompt = "Work."
`, fakeAgent{name: "a", mode: "hooked:limit=86000"}, fakeAgent{name: "b", mode: "hooked"})
	cfg.Agents[0].Account, cfg.Agents[1].Account = "work", "work"
	team, out, wait := startTeamCfg(t, cfg)
	var w map[string]any
	waitFor(t, "usage_limit_wait", func() bool { w = firstEvent(eventsOf(t, cfg), event.UsageLimitWait); return w != nil })
	at := eventTime(t, w)
	if w["agent"] != "a" || w["account"] != "work" || w["alone"] != true {
		t.Errorf("usage_limit_wait %v", w)
	}
	reset, err := time.Parse(time.RFC3339, w["reset"].(string))
	if err != nil || reset.After(at.Add(5*time.Hour+time.Minute)) {
		t.Errorf("reset %v (%v): more than the five-hour window away", reset, err)
	}
	waitFor(t, "b answering after a's word", func() bool {
		return eventsBetween(t, eventsOf(t, cfg), event.CheckpointReceived, "b", at.Add(time.Second), time.Now()) > 1
	})
	if e := firstEvent(eventsOf(t, cfg), event.AccountParked); e != nil {
		t.Errorf("account_parked on one agent's word: %v", e)
	}
	if a := team.agents[1].Status().Pid; procState(a) == 'T' {
		t.Error("b stopped on a's word")
	}
	res, err := controlTeam{team}.Resume(control.ResumeRequest{Account: "work", Via: "cli"})
	if err != nil || strings.Join(res.Agents, ",") != "a" {
		t.Fatalf("resume --account: %+v %v", res, err)
	}
	if _, err := (controlTeam{team}).Resume(control.ResumeRequest{Account: "work", Agent: "a"}); err == nil {
		t.Error("--account with an agent accepted")
	}
	r := firstEvent(eventsOf(t, cfg), event.AccountResumed)
	if r == nil || r["by"] != "person" || r["via"] != "cli" || strings.Join(anyStrings(r["agents"]), ",") != "a" {
		t.Errorf("account_resumed %v", r)
	}
	team.Force()
	res2 := wait()
	if res2.AtLimit {
		t.Error("one agent's word ended the run (on_limit = checkpoint-exit)")
	}
	for _, want := range []string{"WARNING: a says it hit its usage limit (status_line): it alone waits until",
		"RESUMED: account work: a go on (a person, via cli)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
}
