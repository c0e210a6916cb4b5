//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// stopRun ends `warden run` with SIGTERM and waits for it.
func stopRun(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

// warden ps and screen against a running team of fake agents: every agent
// with its state, task, attempt, pid, uptime and checkpoint times, the tasks;
// the screen of a plain agent is its last lines.
func TestPSAndScreen(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=30", task: true},
		opsAgent{name: "w2", mode: "worker:steps=1000", task: true})
	cmd, out := runWarden(t, "run", team)
	defer stopRun(cmd)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 2)

	human, errOut, code := wardenCmd("ps", team)
	if code != 0 {
		t.Fatalf("warden ps: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"team ops: warden pid", "AGENT", "NEXT REQUEST", "w1", "w2", "running", "T1", "TASK", "LAST DONE"} {
		if !strings.Contains(human, want) {
			t.Errorf("warden ps lacks %q:\n%s", want, human)
		}
	}
	ps := psOf(t, team)
	w1, w2 := agentOf(ps, "w1"), agentOf(ps, "w2")
	if w1 == nil || w2 == nil {
		t.Fatalf("ps --json: %v", ps)
	}
	started := eventsNamed(team, "agent_started", "w1")
	if w1["state"] != "running" || w1["task"] != "T1" || w1["attempt"] != 1.0 || w1["pid"] != started[0]["pid"] {
		t.Errorf("w1 in ps: %v (agent_started %v)", w1, started[0])
	}
	if _, ok := w1["exit"]; ok { // its first process has not ended: no "exit code 0"
		t.Errorf("w1 in ps has an exit while it runs its first session: %v", w1)
	}
	for _, k := range []string{"session_started", "last_checkpoint", "next_request", "checkpoint"} {
		if _, ok := w1[k]; !ok {
			t.Errorf("w1 in ps has no %s: %v", k, w1)
		}
	}
	if cp := w1["checkpoint"].(map[string]any); cp["task_id"] != "T1" || len(cp["remaining"].([]any)) == 0 {
		t.Errorf("w1's last checkpoint in ps: %v", cp)
	}
	if tasks := ps["tasks"].([]any); len(tasks) != 2 || tasks[0].(map[string]any)["owner"] != "w1" {
		t.Errorf("tasks in ps: %v", tasks)
	}

	scr, _, code := wardenCmd("screen", "--state-dir", stateOf(team), "w1")
	if code != 0 || !strings.Contains(scr, "CHECKPOINT: T1") || strings.Count(scr, "\n") != 50 {
		t.Errorf("warden screen w1: exit %d, %d lines (want the last 50):\n%s", code, strings.Count(scr, "\n"), scr)
	}
	_, errOut, code = wardenCmd("screen", team, "nobody")
	if code != 1 || !strings.Contains(errOut, `no agent named "nobody"`) || !strings.Contains(errOut, "agents: w1, w2") {
		t.Errorf("screen of an unknown agent: exit %d, %s", code, errOut)
	}
}

// attach: read-only does not type, --rw does, both viewers see the same
// output at once, Ctrl-\ detaches and the agent runs on.
func TestAttachReadOnlyReadWriteTwoViewers(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "", opsAgent{name: "w1", mode: "idle"})
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	pid := waitEvents(t, team, "agent_started", "w1", 1)[0]["pid"]
	time.Sleep(300 * time.Millisecond) // the fake prints "ready"
	logPath := filepath.Join(stateOf(team), "logs", "w1.log")

	ro := attachPty(t, team, "w1")
	ro.waitFor(t, "attached to w1, read-only", 1)
	ro.waitFor(t, "ready", 1) // the screen first
	ro.typeKeys("typed-by-the-reader\r")
	time.Sleep(800 * time.Millisecond)
	if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "typed-by-the-reader") {
		t.Fatalf("a read-only viewer's keystrokes reached the agent:\n%s", b)
	}

	rw := attachPty(t, "--rw", team, "w1")
	rw.waitFor(t, "attached to w1, read-write", 1)
	rw.waitFor(t, "ready", 1)
	rw.typeKeys("typed-by-the-writer\r")
	rw.waitFor(t, "typed-by-the-writer", 1) // the agent's echo (its tty echo is off)
	ro.waitFor(t, "typed-by-the-writer", 1) // the other viewer sees it too
	if b, _ := os.ReadFile(logPath); !strings.Contains(string(b), "typed-by-the-writer") {
		t.Errorf("the --rw viewer's keystrokes did not reach the agent:\n%s", b)
	}

	for _, v := range []*viewer{ro, rw} {
		if code := v.detach(t); code != 0 {
			t.Errorf("attach after Ctrl-\\: exit %d:\n%q", code, v.output())
		}
		if !strings.Contains(v.output(), "detached from w1; it runs on") {
			t.Errorf("attach did not say it detached:\n%q", v.output())
		}
	}
	w1 := agentOf(psOf(t, team), "w1")
	if w1["state"] != "running" || w1["pid"] != pid {
		t.Errorf("after detaching: w1 %v, want running with pid %v", w1, pid)
	}
	if n := len(eventsNamed(team, "viewer_attached", "w1")); n != 2 {
		t.Errorf("%d viewer_attached events, want 2", n)
	}
	waitEvents(t, team, "viewer_detached", "w1", 2)
}

// warden send into a dialog is refused with the reason and how to answer
// it (warden answer), nothing typed;
// --force types into it; ps shows the agent waiting with the dialog's text,
// and screen shows the dialog as the emulator draws it.
func TestSendIntoDialogRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	dialogLog := filepath.Join(t.TempDir(), "dialog.log")
	team := opsTeam(t, "checkpoint_interval = \"2s\"\ncheckpoint_timeout = \"1s\"",
		opsAgent{name: "w", mode: "tui-dialog:" + dialogLog, profile: "claude", task: true})
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "w", 1)

	ps := psOf(t, team)
	if w := agentOf(ps, "w"); w["state"] != "waiting" || !strings.Contains(w["dialog"].(string), "Do you want to proceed?") {
		t.Errorf("ps while the dialog is up: %v", w)
	}
	human, _, _ := wardenCmd("ps", team)
	if !strings.Contains(human, "w waits on a dialog:") || !strings.Contains(human, "| Do you want to proceed?") {
		t.Errorf("warden ps does not show the dialog:\n%s", human)
	}
	scr, _, code := wardenCmd("screen", team, "w")
	if code != 0 || !strings.Contains(scr, "Do you want to proceed?") || !strings.Contains(scr, "❯ 1. Yes") {
		t.Errorf("warden screen w: exit %d\n%s", code, scr)
	}

	out, _, code := wardenCmd("send", team, "w", "please", "carry", "on")
	if code != 1 || !strings.HasPrefix(out, "refused: the agent waits on a dialog") || !strings.Contains(out, "warden answer w allow-once|deny") {
		t.Errorf("send into a dialog: exit %d, %q", code, out)
	}
	time.Sleep(500 * time.Millisecond)
	b, _ := os.ReadFile(dialogLog)
	if strings.Contains(string(b), "TYPED") || strings.Contains(string(b), "APPROVED") {
		t.Fatalf("send typed into the dialog:\n%s", b)
	}
	sent := waitEvents(t, team, "text_sent", "w", 1)
	if sent[0]["outcome"] != "refused" || sent[0]["text"] != "please carry on" {
		t.Errorf("text_sent: %v", sent[0])
	}

	out, _, code = wardenCmd("send", "--force", team, "w", "--", "2")
	if code != 0 || strings.TrimSpace(out) != "submitted" {
		t.Errorf("send --force into the dialog: exit %d, %q", code, out)
	}
	b, _ = os.ReadFile(dialogLog)
	if !strings.Contains(string(b), "TYPED '2'") {
		t.Errorf("send --force did not type into the dialog:\n%s", b)
	}
}

// warden send at a turn boundary: submitted, and the agent got it.
func TestSendSubmits(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "", opsAgent{name: "w1", mode: "idle"})
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_started", "w1", 1)
	time.Sleep(300 * time.Millisecond)
	if scr, errOut, code := wardenCmd("screen", team, "w1"); code != 0 || scr != "ready\n" {
		t.Errorf("warden screen w1: exit %d, %q %s", code, scr, errOut)
	}
	out, errOut, code := wardenCmd("send", team, "w1", "hello", "from", "send")
	if code != 0 || strings.TrimSpace(out) != "submitted" {
		t.Fatalf("warden send: exit %d, %q %s", code, out, errOut)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		scr, _, _ := wardenCmd("screen", team, "w1")
		if strings.Contains(scr, "hello from send") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never echoed the text:\n%s", scr)
		}
	}
	if e := waitEvents(t, team, "text_sent", "w1", 1)[0]; e["outcome"] != "submitted" {
		t.Errorf("text_sent: %v", e)
	}
}

// warden restart: a last checkpoint request, then a new session that
// resumes from that checkpoint.
func TestRestartResumesFromCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=100", task: true})
	cmd, out := runWarden(t, "run", team)
	defer stopRun(cmd)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (3%)", 1)
	before := waitEvents(t, team, "agent_started", "w1", 1)[0]["pid"]

	res, errOut, code := wardenCmd("restart", team, "w1")
	if code != 0 || !strings.Contains(res, "restarted w1: pid ") || !strings.Contains(res, "from checkpoint w1-T1-") {
		t.Fatalf("warden restart: exit %d\n%s%s", code, res, errOut)
	}
	started := waitEvents(t, team, "agent_started", "w1", 2)
	if started[1]["pid"] == before {
		t.Errorf("the restarted session has the old pid %v", before)
	}
	restarted := waitEvents(t, team, "agent_restarted", "w1", 1)[0]
	if restarted["reason"] != "warden restart" {
		t.Errorf("agent_restarted: %v", restarted)
	}
	if len(eventsNamed(team, "restart_requested", "w1")) != 1 {
		t.Errorf("no restart_requested event")
	}
	// The answer to the restart's request, then the new session resumes
	// from it: it says so, and its next checkpoint goes on from there.
	var last int
	for _, e := range eventsNamed(team, "checkpoint_received", "w1") {
		if eventTS(e).Before(eventTS(restarted)) {
			last = int(e["progress"].(float64))
		}
	}
	logBytes := func() string { b, _ := os.ReadFile(filepath.Join(stateOf(team), "logs", "w1.log")); return string(b) }
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logBytes(), "RESUME-SEEN: You are resuming"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the new session was not told to resume:\n%s", logBytes())
		}
	}
	waitEvents(t, team, "checkpoint_received", "w1", 1)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var after []int
		for _, e := range eventsNamed(team, "checkpoint_received", "w1") {
			if eventTS(e).After(eventTS(started[1])) {
				after = append(after, int(e["progress"].(float64)))
			}
		}
		if len(after) > 0 {
			if after[0] <= last {
				t.Errorf("after the restart the first checkpoint says %d%%, the last before it %d%%: not resumed", after[0], last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint from the restarted session")
		}
	}
}

func eventTS(e map[string]any) time.Time {
	at, _ := time.Parse(time.RFC3339Nano, e["ts"].(string))
	return at
}

// warden stop: a team checkpoint (last requests answered), the handoff,
// exit 130; --now: no last requests.
func TestStop(t *testing.T) {
	for _, now := range []bool{false, true} {
		name := "checkpoint"
		if now {
			name = "now"
		}
		t.Run(name, func(t *testing.T) {
			defer proctest.AssertNone(t)
			team := opsTeam(t, "checkpoint_interval = \"1h\"\ncheckpoint_timeout = \"5s\"",
				opsAgent{name: "w1", mode: "worker:steps=1000", task: true},
				opsAgent{name: "w2", mode: "worker:steps=1000", task: true})
			cmd, out := runWarden(t, "run", team)
			waitEvents(t, team, "agent_started", "", 2)
			time.Sleep(500 * time.Millisecond) // the first prompts are typed
			args := []string{"stop", team}
			if now {
				args = append(args, "--now")
			}
			t0 := time.Now()
			res, errOut, code := wardenCmd(args...)
			if code != 0 || !strings.Contains(res, "stopping team ops") || !strings.HasSuffix(res, "warden is done\n") {
				t.Fatalf("warden stop: exit %d\n%s%s", code, res, errOut)
			}
			took := time.Since(t0)
			if err := cmd.Wait(); exitCode(err) != 130 {
				t.Errorf("warden run after warden stop: exit %d, want 130", exitCode(err))
			}
			if out.count("CHECKPOINT COMPLETE") != 1 {
				t.Errorf("no CHECKPOINT COMPLETE after warden stop")
			}
			stop := eventsNamed(team, "stop_requested", "")
			if len(stop) != 1 || stop[0]["now"] != now {
				t.Errorf("stop_requested: %v", stop)
			}
			var lastCalls int
			for _, e := range eventsNamed(team, "checkpoint_requested", "") {
				if e["trigger"] == "team_checkpoint" {
					lastCalls++
				}
			}
			if cps := eventsNamed(team, "checkpoint_received", ""); now && (lastCalls != 0 || len(cps) != 0) {
				t.Errorf("--now: %d last requests typed, %d answers", lastCalls, len(cps))
			} else if !now && (lastCalls != 2 || len(cps) != 2) {
				t.Errorf("stop: %d last requests typed, %d answers; want 2 and 2", lastCalls, len(cps))
			}
			h, err := os.ReadFile(filepath.Join(stateOf(team), "handoff.md"))
			if err != nil || !strings.Contains(string(h), "warden stop") {
				t.Errorf("handoff.md: %v\n%s", err, h)
			}
			t.Logf("warden stop took %s", took)
			if _, errOut, code := wardenCmd("ps", team); code != 1 || !strings.Contains(errOut, "no warden is running this team") {
				t.Errorf("ps after the stop: exit %d, %s", code, errOut)
			}
		})
	}
}

// Every operating command says clearly when no warden runs the team.
func TestCommandsWithoutWarden(t *testing.T) {
	team := opsTeam(t, "", opsAgent{name: "w1", mode: "idle"})
	for _, args := range [][]string{{"ps"}, {"screen", "w1"}, {"attach", "w1"}, {"send", "w1", "hi"}, {"restart", "w1"}, {"stop"}} {
		full := append([]string{args[0], team}, args[1:]...)
		_, errOut, code := wardenCmd(full...)
		if code != 1 || !strings.Contains(errOut, "no warden is running this team at "+stateOf(team)) {
			t.Errorf("warden %s without a warden: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
	if _, errOut, code := wardenCmd("ps"); code != 2 || !strings.Contains(errOut, "no team here") || !strings.Contains(errOut, "usage: warden ps") {
		t.Errorf("warden ps without a team: exit %d, %q", code, errOut)
	}
	// Without TEAM.toml, the current directory's team.
	cmd := warden("screen", "w1")
	cmd.Dir = filepath.Dir(team)
	if out, err := cmd.CombinedOutput(); exitCode(err) != 1 || !strings.Contains(string(out), "no warden is running this team at "+stateOf(team)) {
		t.Errorf("warden screen w1 beside team.toml: exit %d, %q", exitCode(err), out)
	}
}
