//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/hostiletext"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/report"
)

// A state dir holding two runs — the first with a crash and a restart, the
// second without — reports the second only: its run id, no restart, its
// own checkpoints; the first run's report.md said what the first did.
func TestReportTellsTheCurrentRunOnly(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	header := "checkpoint_interval = \"200ms\"\ncheckpoint_timeout = \"2s\"\nshutdown_timeout = \"1s\""
	team := nightTeam(t, dir, header, nightAgent{name: "w1", mode: "worker:steps=2:crash=1", restart: "on-failure", maxRestarts: 3})
	if _, errOut, code := wardenCmd("run", team); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	first := reportOf(t, team)
	firstMD, _ := os.ReadFile(filepath.Join(stateOf(team), "report.md"))
	if first.Summary.Restarts != 1 || first.Run.Ended != report.EndedFinished || !strings.Contains(string(firstMD), "Restarts: 1") {
		t.Fatalf("first run: %+v\nreport.md:\n%s", first.Summary, firstMD)
	}

	team = nightTeam(t, dir, header, nightAgent{name: "w1", mode: "worker:steps=1"})
	if _, errOut, code := wardenCmd("run", team); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, errOut)
	}
	starts := eventsNamed(team, "run_started", "")
	if len(starts) != 2 || starts[0]["run_id"] == starts[1]["run_id"] {
		t.Fatalf("want two runs in events.jsonl: %v", starts)
	}
	second := reportOf(t, "--state-dir", stateOf(team))
	// The second run's checkpoints: those received after its run_started.
	received, in := 0, false
	for _, e := range teamEvents(team) {
		in = in || (e["event"] == "run_started" && e["run_id"] == starts[1]["run_id"])
		if in && e["event"] == "checkpoint_received" {
			received++
		}
	}
	s := second.Summary
	if second.Run.ID != starts[1]["run_id"] || s.Restarts != 0 || len(second.Restarts) != 0 || s.Done != 1 ||
		s.Checkpoints != received || received == 0 || second.Tasks[0].Attempt != 1 {
		t.Errorf("second run's report: run %s (want %v), %+v, %d checkpoints received in it, T1 %+v",
			second.Run.ID, starts[1]["run_id"], s, received, second.Tasks[0])
	}
	if s.Checkpoints >= first.Summary.Checkpoints+received {
		t.Errorf("the second run's report counts the first run's checkpoints: %d", s.Checkpoints)
	}
	md, _ := os.ReadFile(filepath.Join(stateOf(team), "report.md"))
	if !strings.Contains(string(md), "Run "+second.Run.ID+": finished") || !strings.Contains(string(md), "Restarts: none") {
		t.Errorf("report.md after the second run:\n%s", md)
	}
}

// A state dir with no run is exit 1, saying so (and a missing one too);
// no team here at all is bad usage (exit 2).
func TestReportWithNoRunSaysSo(t *testing.T) {
	defer proctest.AssertNone(t)
	empty := t.TempDir()
	old := t.TempDir()
	os.WriteFile(filepath.Join(old, "state.json"), []byte(`{"team":"t","agents":[],"tasks":[]}`), 0o600)
	for dir, want := range map[string]string{empty: "holds no state.json", filepath.Join(empty, "gone"): "holds no state.json",
		old: "names no run"} {
		for _, args := range [][]string{{"report", "--state-dir", dir}, {"report", "--json", "--state-dir", dir}} {
			out, errOut, code := wardenCmd(args...)
			if code != 1 || out != "" || !strings.Contains(errOut, "no run to report on") || !strings.Contains(errOut, want) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
			}
		}
	}
	cmd := warden("report")
	cmd.Dir = empty
	if out, err := cmd.CombinedOutput(); exitCode(err) != 2 || !strings.Contains(string(out), "no team here") {
		t.Errorf("warden report with no team here: exit %d, %s", exitCode(err), out)
	}
}

// A crafted state dir whose team, agents, tasks, dialogs, reasons and last
// lines hold escape sequences, forged rows and headings, and invisible
// characters: warden report prints them plain, on their lines, as text and
// as --json; its supervisor died, so the run is interrupted.
func TestReportOfAHostileStateDirIsPlain(t *testing.T) {
	defer proctest.AssertNone(t)
	st := t.TempDir()
	evil, _ := json.Marshal(hostiletext.Text)
	fill := func(s string) string { return strings.ReplaceAll(s, "EVIL", string(evil)) }
	os.WriteFile(filepath.Join(st, "state.json"), []byte(fill(`{"team":EVIL,"run_id":"R1","run_started_at":"2026-01-01T20:00:00Z",
	"pid":1,"running":true,"updated_at":"2026-01-01T21:00:00Z",
	"agents":[{"name":EVIL,"state":EVIL,"attempt":1,"exit_code":0}],
	"tasks":[{"id":EVIL,"title":EVIL,"state":"failed","attempt":3,"progress":5,"reason":EVIL,"blockers":[EVIL]},
	  {"id":"T2","title":EVIL,"state":"running","attempt":1,"progress":50,"summary":"blocked","blockers":[EVIL],"estimate_seconds":60}]}`)), 0o600)
	events := []string{
		`{"ts":"2026-01-01T20:00:00Z","event":"run_started","run_id":"R1","how":"new","reason":EVIL}`,
		`{"ts":"2026-01-01T20:01:00Z","event":"agent_started","agent":EVIL,"task":EVIL}`,
		`{"ts":"2026-01-01T20:02:00Z","event":"agent_waiting","agent":EVIL,"task":EVIL,"kind":EVIL,"text":EVIL}`,
		`{"ts":"2026-01-01T20:09:00Z","event":"dialog_answered","agent":EVIL,"by":EVIL,"via":EVIL,"choice":EVIL}`,
		`{"ts":"2026-01-01T20:10:00Z","event":"agent_exited","agent":EVIL,"task":EVIL,"code":1,"signal":EVIL}`,
		`{"ts":"2026-01-01T20:11:00Z","event":"agent_restarted","agent":EVIL,"task":EVIL,"attempt":2,"backoff":EVIL,"reason":EVIL}`,
		`{"ts":"2026-01-01T20:12:00Z","event":"usage_limit_wait","agent":EVIL,"task":EVIL,"until":EVIL,"reset":EVIL,"text":EVIL}`,
		`{"ts":"2026-01-01T20:13:00Z","event":"account_parked","account":EVIL,"agents":[EVIL],"resets_at":EVIL,"source":EVIL}`,
		`{"ts":"2026-01-01T20:20:00Z","event":"agent_failed","agent":EVIL,"task":EVIL,"reason":EVIL,"last_lines":[EVIL,EVIL]}`,
		`{"ts":"2026-01-01T20:30:00Z","event":"team_checkpoint_started","reason":EVIL,"cause":EVIL}`,
	}
	os.WriteFile(filepath.Join(st, "events.jsonl"), []byte(fill(strings.Join(events, "\n")+"\n")), 0o600)

	text, errOut, code := wardenCmd("report", "--state-dir", st)
	if code != 0 || !strings.Contains(text, "forged") || !strings.Contains(text, "Run R1: interrupted") {
		t.Fatalf("warden report: exit %d\n%s\n%s", code, text, errOut)
	}
	plainPage(t, "warden report", text)
	// The report's own headings and items start a line; what an agent
	// wrote never does (a continuation line is indented).
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "# Forged") || strings.HasPrefix(l, "| forged") || strings.HasPrefix(l, "forged") {
			t.Errorf("a forged line: %q", l)
		}
	}
	for _, want := range []string{"Needed a person: 1 dialog, 7m waited in all", "Restarts: 1", "Usage limits: 2", "Agents that failed"} {
		if !strings.Contains(text, want) {
			t.Errorf("warden report lacks %q:\n%s", want, text)
		}
	}
	out, _, code := wardenCmd("report", "--json", "--state-dir", st)
	if code != 0 || !json.Valid([]byte(out)) {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	plainJSON(t, "warden report --json", out)
	r := reportOf(t, "--state-dir", st)
	if r.Run.Ended != report.EndedInterrupted || len(r.Waits) != 1 || r.Waits[0].Ended != "answered" || len(r.Failures) != 1 {
		t.Errorf("the crafted run: %+v, waits %+v", r.Run, r.Waits)
	}
	if len(r.Agents) != 1 || r.Agents[0].Waits != 1 || r.Agents[0].Restarts != 1 || !r.Agents[0].Failed {
		t.Errorf("one agent, whose name is hostile: %+v", r.Agents)
	}
}

// A silent agent stalls, is restarted from its checkpoint, stalls again
// and is failed: the report's restart says it stalled, with the code of
// the session warden ended, and counts both stalls.
func TestReportTellsAStall(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	header := "checkpoint_interval = \"1s\"\ncheckpoint_timeout = \"500ms\"\nstale_warning = \"1s\"\nstale_failure = \"2s\"\nshutdown_timeout = \"1s\""
	team := nightTeam(t, dir, header, nightAgent{name: "w1", mode: "worker:silent=1", restart: "on-failure", maxRestarts: 1})
	if _, errOut, code := wardenCmd("run", team); code != 1 {
		t.Fatalf("exit %d, want 1 (T1 failed)\n%s", code, errOut)
	}
	r := reportOf(t, team)
	stalls := countOf(team, "agent_stalled", "w1")
	if stalls != 2 || r.Summary.Stalls != stalls || r.Agents[0].Stalls != stalls || r.Summary.Failed != 1 || len(r.Failures) != 1 {
		t.Errorf("summary %+v, w1 %+v; %d agent_stalled", r.Summary, r.Agents[0], stalls)
	}
	if len(r.Restarts) != 1 || r.Restarts[0].Why != "stalled (no output for 2s)" || r.Restarts[0].ExitCode == nil {
		t.Errorf("restarts: %+v", r.Restarts)
	}
	text, _, _ := wardenCmd("report", team)
	if !strings.Contains(text, "w1 on T1, attempt 2: stalled (no output for 2s)") || !strings.Contains(text, "2 stalls") {
		t.Errorf("warden report:\n%s", text)
	}
}
