//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/report"
)

// nightAgent is one fake agent of a report test's team, with a task of its
// own (T<n>).
type nightAgent struct {
	name, mode, profile string
	restart             string // restart policy, with maxRestarts
	maxRestarts         int
	estimate            string // its task's estimate
}

// nightTeam writes a team file of fake agents (header: team-level keys)
// into dir and returns its path.
func nightTeam(t *testing.T, dir, header string, agents ...nightAgent) string {
	t.Helper()
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"night\"\n%s\n", header)
	for i, a := range agents {
		argv := fakeagent.Command(a.mode)
		fmt.Fprintf(&b, "[[agent]]\nname = %q\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			a.name, argv[0], argv[1], fakeagent.EnvMode, a.mode, fakeagent.EnvOwner, owner)
		if a.profile != "" {
			fmt.Fprintf(&b, "profile = %q\n", a.profile)
		}
		if a.restart != "" {
			fmt.Fprintf(&b, "restart = %q\nmax_restarts = %d\n", a.restart, a.maxRestarts)
		}
		fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"Do task %d.\"\nagent = %q\n", i+1, i+1, i+1, a.name)
		if a.estimate != "" {
			fmt.Fprintf(&b, "estimate = %q\n", a.estimate)
		}
	}
	p := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportOf runs `warden report ARGS… --json` and decodes it.
func reportOf(t *testing.T, args ...string) report.Report {
	t.Helper()
	out, errOut, code := wardenCmd(append([]string{"report", "--json"}, args...)...)
	var r report.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("warden report --json %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	return r
}

// plainJSON fails the test when text holds a control character (the line
// ends aside) or an invisible one.
func plainJSON(t *testing.T, what, text string) {
	t.Helper()
	for _, r := range text {
		if r != '\n' && (protocol.IsControl(r) || protocol.IsInvisible(r)) {
			t.Errorf("%s holds %U:\n%q", what, r, text)
			break
		}
	}
}

// plainPage is plainJSON, and fails the test on a line wider than the
// report's width.
func plainPage(t *testing.T, what, text string) {
	t.Helper()
	plainJSON(t, what, text)
	for _, l := range strings.Split(text, "\n") {
		if n := len([]rune(l)); n > report.Width {
			t.Errorf("%s: a line of %d columns (> %d):\n%s", what, n, report.Width, l)
		}
	}
}

// countOf counts the team's events called name (of agent, when set).
func countOf(team, name, agent string) int { return len(eventsNamed(team, name, agent)) }

// A night of four fake agents — one that completes, one that crashes once
// and completes, one that exits 3 until it is failed, one whose dialog is
// denied after dialog_timeout — stopped by Ctrl-C: `warden report` (while
// it runs and after), its --json, report.md and the team_done notification
// say what the run did, as events.jsonl has it.
func TestReportTellsTheNight(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	notified := filepath.Join(dir, "notified.json")
	header := fmt.Sprintf(`checkpoint_interval = "300ms"
checkpoint_timeout = "2s"
shutdown_timeout = "2s"
on_dialog = "deny"
dialog_timeout = "1s"
[[notify]]
events = ["team_done"]
command = ["sh", "-c", "cat > %s"]
`, notified)
	team := nightTeam(t, dir, header,
		nightAgent{name: "w1", mode: "worker:steps=2", estimate: "1h"},
		nightAgent{name: "w2", mode: "worker:steps=3:crash=1", restart: "on-failure", maxRestarts: 3, estimate: "2h"},
		nightAgent{name: "w3", mode: "exit:3", restart: "on-failure", maxRestarts: 1},
		nightAgent{name: "w4", mode: "tui-dialog:" + filepath.Join(dir, "dialog.log"), profile: "claude"})
	cmd, out := runWarden(t, "run", team)
	defer stopRun(cmd)
	t.Cleanup(func() { // seen once (w4's dialog never drawn): what w4 was typed, and warden's log
		if t.Failed() {
			typed, _ := os.ReadFile(filepath.Join(dir, "dialog.log"))
			t.Logf("w4's dialog.log:\n%s\nwarden:\n%s", typed, out.dump())
		}
	})
	waitEvents(t, team, "task_completed", "w2", 1)
	waitEvents(t, team, "task_completed", "w1", 1)
	waitEvents(t, team, "agent_failed", "w3", 1)
	waitEvents(t, team, "dialog_denied", "w4", 1)
	waitEvents(t, team, "checkpoint_received", "w4", 1) // w4 carries on after the denial

	live := reportOf(t, team)
	if live.Run.Ended != report.EndedRunning || live.Run.ExitCode != nil || len(live.Waits) != 1 {
		t.Errorf("report while the team runs: ended %q, exit %v, waits %+v", live.Run.Ended, live.Run.ExitCode, live.Waits)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", exitCode(err), out.dump())
	}

	r := reportOf(t, team)
	s := r.Summary
	if r.Run.Ended != report.EndedStopped || r.Run.ExitCode == nil || *r.Run.ExitCode != 130 || r.Run.ID == "" {
		t.Errorf("run: %+v", r.Run)
	}
	if s.Tasks != 4 || s.Done != 2 || s.Failed != 1 || s.Open != 1 {
		t.Errorf("tasks: %+v, want 2 done, 1 failed (T3), 1 open (T4)", s)
	}
	if s.Restarts != countOf(team, "agent_restarted", "") || s.Restarts != 2 || s.Failures != 1 {
		t.Errorf("restarts %d, failures %d; events: %d agent_restarted", s.Restarts, s.Failures, countOf(team, "agent_restarted", ""))
	}
	why := map[string]string{}
	for _, rs := range r.Restarts {
		why[rs.Agent] = rs.Why
		if rs.ExitCode == nil || rs.Attempt != 2 {
			t.Errorf("restart %+v: want its exit code and attempt 2", rs)
		}
	}
	if why["w2"] != "exited with code 1" || why["w3"] != "exited with code 3" {
		t.Errorf("restarts and why: %v", why)
	}
	if len(r.Failures) != 1 || r.Failures[0].Agent != "w3" || r.Failures[0].Task != "T3" || r.Failures[0].Reason == "" {
		t.Errorf("failures: %+v", r.Failures)
	}
	if len(r.Waits) != 1 {
		t.Fatalf("waits: %+v", r.Waits)
	}
	// Measured between the events' times: agent_waiting is written after
	// state.json says the agent waits, so a loaded machine shortens the
	// 1 s dialog_timeout a little.
	w := r.Waits[0]
	if w.Agent != "w4" || w.Task != "T4" || w.Ended != "denied" || w.Kind != "permission" ||
		!strings.Contains(w.Text, "curl -s http://127.0.0.1:9/probe") || w.WaitedSeconds < 0.5 || w.WaitedSeconds > 10 {
		t.Errorf("the wait: %+v, want w4's permission dialog, denied after 1s", w)
	}
	if s.WaitedSeconds != w.WaitedSeconds || countOf(team, "agent_waiting", "") != 1 {
		t.Errorf("waited %v in all, the wait %v", s.WaitedSeconds, w.WaitedSeconds)
	}
	tasks := map[string]report.Task{}
	for _, task := range r.Tasks {
		tasks[task.ID] = task
	}
	for id, agent := range map[string]string{"T1": "w1", "T2": "w2", "T4": "w4"} {
		if n := countOf(team, "checkpoint_received", agent); tasks[id].Checkpoints != n || n == 0 {
			t.Errorf("%s: %d checkpoints in the report, %d checkpoint_received", id, tasks[id].Checkpoints, n)
		}
	}
	if t1 := tasks["T1"]; t1.State != "complete" || t1.EstimateSeconds != 3600 || t1.WorkedSeconds <= 0 || t1.WorkedSeconds > 60 {
		t.Errorf("T1: %+v, want complete, worked a few seconds of 1h estimated", t1)
	}
	if t2 := tasks["T2"]; t2.Restarts != 1 || t2.Attempt != 2 || t2.State != "complete" {
		t.Errorf("T2: %+v", t2)
	}
	if t3 := tasks["T3"]; t3.State != "failed" || !strings.Contains(t3.Reason, "max_restarts") {
		t.Errorf("T3: %+v, want failed with its reason", t3)
	}
	if len(r.TeamCheckpoints) != 1 || r.TeamCheckpoints[0].Cause != protocol.CauseUserInterrupt {
		t.Errorf("team checkpoints: %+v", r.TeamCheckpoints)
	}
	if r.Usage.Recorded || r.Usage.Note != report.NotRecorded {
		t.Errorf("usage: %+v", r.Usage)
	}

	text, _, code := wardenCmd("report", team)
	plainPage(t, "warden report", text)
	for _, want := range []string{"# warden report: night", "Run " + r.Run.ID + ": stopped", "Tasks: 2 done, 1 failed, 1 open, of 4",
		"Restarts: 2", "w2 on T2, attempt 2: exited with code 1", "Needed a person: 1 dialog", "denied by warden",
		"Agents that failed", "Team checkpoints: 1.", "user_interrupt", "## Tokens and cost", report.NotRecorded} {
		if code != 0 || !strings.Contains(text, want) {
			t.Errorf("warden report (exit %d) lacks %q:\n%s", code, want, text)
		}
	}

	md := filepath.Join(stateOf(team), "report.md")
	fi, err := os.Stat(md)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("report.md: %v %v", fi, err)
	}
	body, _ := os.ReadFile(md)
	if !strings.Contains(string(body), "Tasks: 2 done, 1 failed, 1 open, of 4") || !strings.Contains(string(body), "warden exited with code 130") {
		t.Errorf("report.md:\n%s", body)
	}
	plainPage(t, "report.md", string(body))

	var done struct {
		Event      string        `json:"event"`
		Report     report.Report `json:"report"`
		ReportFile string        `json:"report_file"`
	}
	note, err := os.ReadFile(notified)
	if err != nil || json.Unmarshal(note, &done) != nil {
		t.Fatalf("the team_done notification: %v\n%s", err, note)
	}
	if done.Event != "team_done" || done.Report.Run.ID != r.Run.ID || done.Report.Summary.Done != 2 ||
		done.Report.Summary.Restarts != 2 || len(done.Report.Waits) != 1 || done.ReportFile != md || len(note) > report.EventMax+1024 {
		t.Errorf("team_done's report: %+v (file %q, %d bytes)", done.Report.Summary, done.ReportFile, len(note))
	}
}
