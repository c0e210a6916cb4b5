//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/testrig/proctest"
)

// `warden upgrade` mid-turn, a checkpoint request of each agent in
// flight: the same warden pid execs the binary again, takes every agent
// back from the holder (same pids, no agent_started but taken back, no
// agent_exited, no prompt typed again), every answer is recorded exactly
// once over the upgrade, run_started says upgraded, and the run then stops
// with nothing left.
func TestUpgradeMidTurnTakesTheAgentsBack(t *testing.T) {
	defer proctest.AssertNone(t)
	agents := []string{"w1", "w2", "w3"}
	mode := "worker:steps=40:slow=300ms"
	team := heldTeam(t, "", mode, mode, mode)
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	for i := range agents {
		out.waitFor(t, fmt.Sprintf("CHECKPOINT: T%d - implementing (5%%)", i+1), 1)
	}
	first := startedPids(t, state)
	inFlight(t, state, agents...)
	before := len(readEvents(t, state))
	up := warden("upgrade", team)
	msg, err := up.CombinedOutput()
	if err != nil {
		t.Fatalf("warden upgrade: %v\n%s\n%s", err, msg, out.dump())
	}
	t.Logf("warden upgrade:\n%s", msg)
	if !strings.Contains(string(msg), "upgraded: warden ") || !strings.Contains(string(msg), "3 agents taken back, 0 restarted") {
		t.Errorf("warden upgrade says:\n%s", msg)
	}
	out.waitFor(t, "CARRYING ON:", 1)
	for i := range agents {
		n := out.count(fmt.Sprintf("CHECKPOINT: T%d - implementing", i+1))
		out.waitFor(t, fmt.Sprintf("CHECKPOINT: T%d - implementing", i+1), n+2)
	}
	upgraded := readEvents(t, state)[before:]
	// The old image's descriptors all went with the exec (close-on-exec):
	// the new warden holds one master per agent, the ones it was handed.
	if n := ptyMasters(cmd.Process.Pid); n != len(agents) {
		t.Errorf("warden holds %d pty masters after the upgrade, want %d", n, len(agents))
	}
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd.Wait()
	if !strings.Contains(out.dump(), "upgraded from warden ") {
		t.Errorf("the carrying-on line does not say it is an upgrade:\n%s", out.dump())
	}
	started, upgrading, how := 0, 0, ""
	for _, e := range upgraded {
		switch e.Event {
		case "agent_started":
			started++
			if !e.TakenBack || len(first[e.Agent]) == 0 || e.Pid != first[e.Agent][len(first[e.Agent])-1] {
				t.Errorf("%s: agent_started pid %d taken_back %v; pids before the upgrade %v", e.Agent, e.Pid, e.TakenBack, first[e.Agent])
			}
		case "agent_exited", "agent_restarted", "agent_force_terminated":
			t.Errorf("%s: %s over the upgrade", e.Agent, e.Event)
		case "supervisor_upgrading":
			upgrading++
		case "run_started":
			if e.How == "upgraded" && len(e.Agents) == len(agents) {
				how = e.How
			}
		}
	}
	if started != len(agents) || upgrading != 1 || how != "upgraded" {
		t.Errorf("over the upgrade: %d agents started (want %d, each taken back), %d supervisor_upgrading, run_started how %q",
			started, len(agents), upgrading, how)
	}
	promptedOnceAndRecordedOnce(t, state, agents, out.all, first)
}

// Without holder = true there is nothing to carry the agents over an exec:
// warden upgrade is refused, and nothing changes.
func TestUpgradeRefusedWithoutHolder(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=40:slow=100ms")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	msg, err := warden("upgrade", team).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(msg), "upgrade needs holder = true: ") {
		t.Errorf("warden upgrade without a holder: exit %d\n%s", exitCode(err), msg)
	}
	stillRuns(t, team, cmd, out)
	for _, e := range readEvents(t, state) {
		if strings.HasPrefix(e.Event, "supervisor_upgrad") || e.Event == "agent_restarted" {
			t.Errorf("event %s after a refused upgrade", e.Event)
		}
	}
}

// An upgrade to a binary that does not exist is refused before anything
// changes: the old warden runs on with its agents.
func TestUpgradeToAMissingBinaryLeavesWardenRunning(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=40:slow=100ms")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	missing := filepath.Join(t.TempDir(), "warden-new")
	msg, err := warden("upgrade", team, "--binary", missing).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(msg), "does not run") || !strings.Contains(string(msg), "nothing changed") {
		t.Errorf("warden upgrade --binary %s: exit %d\n%s", missing, exitCode(err), msg)
	}
	stillRuns(t, team, cmd, out)
	for _, e := range readEvents(t, state) {
		if strings.HasPrefix(e.Event, "supervisor_upgrad") || e.Event == "agent_restarted" || e.Event == "run_started" && e.How != "new" {
			t.Errorf("event %s (how %q) after a refused upgrade", e.Event, e.How)
		}
	}
}

// A new binary that runs `--version` and `validate` but cannot be executed
// (validate takes its own execute bit away): the exec fails after warden let go of its
// readers; they read on, the caller is told why, and warden runs on with
// its agents — none restarted.
func TestUpgradeExecFailsWardenRunsOn(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=40:slow=100ms")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	bad := filepath.Join(t.TempDir(), "warden-new")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\ncase \"$1\" in --version) echo 'warden v9.9.9' ;; validate) chmod -x \"$0\" ;; esac\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	msg, err := warden("upgrade", team, "--binary", bad).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(msg), "upgrade failed: exec "+bad) || !strings.Contains(string(msg), "runs on") {
		t.Errorf("warden upgrade --binary %s (not executable at the exec): exit %d\n%s", bad, exitCode(err), msg)
	}
	stillRuns(t, team, cmd, out)
	failed := 0
	for _, e := range readEvents(t, state) {
		switch {
		case e.Event == "supervisor_upgrade_failed":
			failed++
		case e.Event == "agent_restarted" || e.Event == "run_started" && e.How != "new":
			t.Errorf("event %s (how %q) after a failed upgrade", e.Event, e.How)
		}
	}
	if failed != 1 {
		t.Errorf("%d supervisor_upgrade_failed events, want 1", failed)
	}
}

// A team file the new binary refuses (edited since warden started) would
// leave the agents to the holder once the new binary exits 2 at its start:
// the upgrade is refused before anything changes.
func TestUpgradeRefusedWhenTheNewBinaryRefusesTheTeamFile(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=40:slow=100ms")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	good, err := os.ReadFile(team)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(team, append(good, []byte("\nno_such_key = 1\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	msg, err := warden("upgrade", "--state-dir", filepath.Join(filepath.Dir(team), ".warden")).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(msg), "refuses the team file") || !strings.Contains(string(msg), "no_such_key") {
		t.Errorf("warden upgrade with a team file the new binary refuses: exit %d\n%s", exitCode(err), msg)
	}
	if err := os.WriteFile(team, good, 0o600); err != nil {
		t.Fatal(err)
	}
	stillRuns(t, team, cmd, out)
}

// stillRuns checks that warden (pid) answers and its agent goes on
// answering, then stops it: nothing is left.
func stillRuns(t *testing.T, team string, cmd *exec.Cmd, out *lines) {
	pid := cmd.Process.Pid
	t.Helper()
	n := out.count("CHECKPOINT: T1 - implementing")
	out.waitFor(t, "CHECKPOINT: T1 - implementing", n+2)
	ps, err := warden("ps", team, "--json").Output()
	var got struct{ Pid int }
	if err != nil || json.Unmarshal(ps, &got) != nil || got.Pid != pid {
		t.Errorf("warden ps after the refused upgrade: %v\n%s", err, ps)
	}
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd.Wait()
}

// ptyMasters counts the pty masters process pid holds.
func ptyMasters(pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, _ := os.ReadDir(dir)
	n := 0
	for _, fd := range fds {
		if l, _ := os.Readlink(filepath.Join(dir, fd.Name())); l == "/dev/ptmx" || strings.HasPrefix(l, "/dev/pts/ptmx") {
			n++
		}
	}
	return n
}

// `warden run --http ADDR` with its token in $WARDEN_HTTP_TOKEN (taken out
// of warden's environment at start): after `warden upgrade` the new binary
// serves the page again on the same address with the same token.
func TestUpgradeServesThePageAgainOnTheSameAddress(t *testing.T) {
	defer proctest.AssertNone(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	team := heldTeam(t, "", "worker:steps=40:slow=100ms")
	const token = "upgrade-test-token-0123456789abcdef"
	p := startPage(t, stateOf(team), 0, []string{"WARDEN_HTTP_TOKEN=" + token}, "run", "--http", addr, team)
	defer p.stop()
	p.out.waitFor(t, "CHECKPOINT: T1 - implementing (5%)", 1)
	if code, body := p.get("/api/ps", true); code != 200 {
		t.Fatalf("the page before the upgrade: %d %s", code, body)
	}
	msg, err := warden("upgrade", team).CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "1 agent taken back, 0 restarted") {
		t.Fatalf("warden upgrade: %v\n%s\n%s", err, msg, p.out.dump())
	}
	code, body := p.get("/api/ps", true)
	if code != 200 || !strings.Contains(body, fmt.Sprintf(`"pid":%d`, p.cmd.Process.Pid)) {
		t.Errorf("the page after the upgrade, same address and token: %d %.300s", code, body)
	}
	if code, _ := p.get("/api/ps", false); code == 200 {
		t.Errorf("the page after the upgrade answers without its token")
	}
}
