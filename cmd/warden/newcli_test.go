//go:build e2e

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// thatcli is an agent CLI that exists only in this test binary, registered
// the way a CLI's file in protocol/profile registers itself: its name and
// program, one hook kind whose JSON payload carries the turn's answer, the
// flag that lets it work unattended, and the agent `warden init` writes
// for it. Nothing else in warden names it: everything below reaches it
// through the registry.
const (
	thatCLI      = "thatcli"
	thatCLIDone  = "thatcli-done"
	thatCLIFlag  = "--no-questions"
	thatCLINotes = "FROM-THATCLI-HOOK"
)

func init() {
	profile.Register(profile.CLI{
		Name:     thatCLI,
		Programs: []string{thatCLI},
		Kinds:    []string{thatCLIDone},
		Hook: func(kind string, payload []byte) profile.HookFacts {
			var p struct {
				Answer *string `json:"answer"`
			}
			if json.Unmarshal(payload, &p) != nil || p.Answer == nil {
				return profile.HookFacts{}
			}
			return profile.HookFacts{Answer: *p.Answer, HasAnswer: true}
		},
		Unattended: profile.UnattendedRule{
			Flags: map[string][]string{thatCLIFlag: nil},
			Env:   func(env map[string]string) bool { return env["THATCLI_TRUST"] == "all" },
			Hint:  thatCLIFlag,
		},
		Init: profile.InitAgent{
			Comment: "Unattended: thatcli never asks.",
			Command: []string{thatCLI, thatCLIFlag},
		},
	})
	fakeagent.Register(thatCLI, modeThatCLI)
}

// thatcli (a fake agent mode): a line-oriented CLI that answers each
// CHECKPOINT REQUEST through its hook only — `warden hook thatcli-done`
// with {"answer": BLOCK} on stdin — and prints no block.
func modeThatCLI([]string) int {
	fmt.Println("thatcli: ready")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for in.Scan() {
		task, ok := protocol.RequestTask(strings.TrimSpace(in.Text()))
		if !ok {
			continue
		}
		n++
		block := fmt.Sprintf("CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- step %d\nRemaining:\n- more\n"+
			"Files Modified: a.go\nEstimated Progress: %d%%\nNotes: %s\n", task, n, min(n, 99), thatCLINotes)
		hook := exec.Command(os.Args[0], "hook", thatCLIDone)
		hook.Env = agentEnv()
		hook.Stdin = strings.NewReader(mustJSON(map[string]any{"answer": "Done.\n\n" + block}))
		out, err := hook.CombinedOutput()
		fmt.Printf("thatcli: hook %d sent (%v %q)\n", n, err, out)
	}
	return 0
}

// A CLI registered from one file is known everywhere: profile's Names, For
// and Guess; `warden init` writes an agent for it when its program is on
// PATH, which validates; validate accepts profile = "thatcli", lists it
// among the profiles, and warns about its command without the unattended
// flag unless its env sets what stands for it; `warden hook thatcli-done`
// is accepted, and a run records the checkpoint its hook carries (the agent
// prints none).
func TestANewCLIIsOneFile(t *testing.T) {
	defer proctest.AssertNone(t)
	if !slices.Contains(profile.Names(), thatCLI) {
		t.Errorf("Names() = %v, without %s", profile.Names(), thatCLI)
	}
	if p, err := profile.For(thatCLI); err != nil || p.Name != thatCLI || p.Mode != protocol.ModeLines {
		t.Errorf("For(%s) = %v, %v", thatCLI, p, err)
	}
	if got := profile.Guess("/opt/thatcli/bin/" + thatCLI); got != thatCLI {
		t.Errorf("Guess = %s", got)
	}
	if !slices.Contains(profile.HookKinds(), thatCLIDone) || !profile.Sends(thatCLI, thatCLIDone) || profile.Sends(thatCLI, profile.KindClaudeStop) {
		t.Errorf("hook kinds %v; thatcli sends its kind %v, Claude's %v", profile.HookKinds(),
			profile.Sends(thatCLI, thatCLIDone), profile.Sends(thatCLI, profile.KindClaudeStop))
	}

	// warden init, with thatcli (only) on PATH.
	dir, bin := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(bin, thatCLI), []byte("#!/bin/sh\n"), 0o700)
	onPath := func(cmd *exec.Cmd) *exec.Cmd {
		cmd.Env = append(withoutEnv(cmd.Env, "PATH"), "PATH="+bin)
		return cmd
	}
	out, err := onPath(inDir(dir, "init")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "wrote team.toml: agents thatcli\n") {
		t.Fatalf("init: %v\n%s", err, out)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "team.toml"))
	for _, want := range []string{"# found: " + filepath.Join(bin, thatCLI) + "\n[[agent]]\nname = \"thatcli\"\nprofile = \"thatcli\"\n" +
		"# Unattended: thatcli never asks.\ncommand = [\"thatcli\", \"--no-questions\"]\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("team.toml has no\n%s\nin:\n%s", want, text)
		}
	}
	if out, err := onPath(inDir(dir, "validate", "team.toml")).CombinedOutput(); err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("validate the team init wrote: %v\n%s", err, out)
	}

	// validate: the profile is known, its unattended flag looked for.
	asked := filepath.Join(dir, "asks.toml")
	os.WriteFile(asked, []byte("name = \"t\"\n[[agent]]\nname = \"a\"\nprofile = \"thatcli\"\ncommand = [\"thatcli\"]\n"), 0o600)
	out, err = onPath(warden("validate", asked)).CombinedOutput()
	if exitCode(err) != 0 || !strings.Contains(string(out), `agent "a" (profile thatcli) has no permission setting`) ||
		!strings.Contains(string(out), "(add "+thatCLIFlag+")") {
		t.Errorf("validate a thatcli agent without %s: exit %d\n%s", thatCLIFlag, exitCode(err), out)
	}
	trusted := filepath.Join(dir, "trusted.toml")
	os.WriteFile(trusted, []byte("name = \"t\"\n[[agent]]\nname = \"a\"\nprofile = \"thatcli\"\ncommand = [\"thatcli\"]\nenv = { THATCLI_TRUST = \"all\" }\n"), 0o600)
	if out, err := onPath(warden("validate", trusted)).CombinedOutput(); err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("validate a thatcli agent whose env lets it work unattended: %v\n%s", err, out)
	}
	unknown := filepath.Join(dir, "unknown.toml")
	os.WriteFile(unknown, []byte("name = \"t\"\n[[agent]]\nname = \"a\"\nprofile = \"thatcly\"\ncommand = [\"thatcli\"]\n"), 0o600)
	if out, err := warden("validate", unknown).CombinedOutput(); exitCode(err) != 2 || !strings.Contains(string(out), "thatcli") {
		t.Errorf("validate an unknown profile: exit %d, want 2 and thatcli among the profiles named\n%s", exitCode(err), out)
	}

	// A run: its answers reach warden through its hook only.
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w", mode: thatCLI, profile: thatCLI, task: true})
	run, _ := runWarden(t, "run", team)
	defer stopRun(run)
	received := waitEvents(t, team, "checkpoint_received", "w", 2)
	if received[0]["task"] != "T1" {
		t.Errorf("checkpoint_received: %v", received[0])
	}
	if latest, err := os.ReadFile(filepath.Join(stateOf(team), "checkpoints", "w-T1.json")); !strings.Contains(string(latest), thatCLINotes) {
		t.Errorf("the latest checkpoint does not hold the hook's notes %q: %v\n%s", thatCLINotes, err, latest)
	}
	log, _ := os.ReadFile(filepath.Join(stateOf(team), "logs", "w.log"))
	if !strings.Contains(string(log), "thatcli: hook 1 sent (<nil> \"\")") || strings.Contains(string(log), thatCLINotes) {
		t.Errorf("the agent's output (its hook must have run, and no block be on its screen):\n%s", log)
	}
	stopRun(run)
}
