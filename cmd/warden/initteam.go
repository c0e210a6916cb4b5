package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/protocol/profile"
)

// initUsage is init's usage line, with the CLIs it knows.
func initUsage() string {
	return "usage: warden init [--cli CLI]… [FILE]  (CLI: " + strings.Join(initNames(), ", ") + "; FILE: team.toml)"
}

// initCLIs are the CLIs `warden init` writes an agent for, in the order it
// writes them: those with a program of their own (protocol/profile's
// registry), then plain.
func initCLIs() []profile.CLI {
	var withProgram, without []profile.CLI
	for _, c := range profile.CLIs() {
		switch {
		case len(c.Init.Command) == 0:
		case len(c.Programs) > 0:
			withProgram = append(withProgram, c)
		default:
			without = append(without, c)
		}
	}
	return append(withProgram, without...)
}

func initNames() []string {
	var names []string
	for _, c := range initCLIs() {
		names = append(names, c.Name)
	}
	return names
}

// initAgent is the [[agent]] table `warden init` writes for c in project
// p: its command with the flags that let the CLI work unattended — its
// preset for the project's own commands (initproject.go) —, and why
// (docs/agent-clis.md: "Unattended: let the CLI approve what you trust").
func initAgent(c profile.CLI, p project) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[[agent]]\nname = %s\nprofile = %s\n", tomlValue(cmp.Or(c.Init.Name, c.Name)), tomlValue(c.Name))
	comment, argv := c.Init.Comment, c.Init.Command
	preset, ok := initPreset(c, p)
	if ok {
		comment, argv = preset.Comment, preset.Command(c.Init.Command[0])
	}
	for _, line := range strings.Split(comment, "\n") {
		if line != "" {
			fmt.Fprintf(&b, "# %s\n", line)
		}
	}
	fmt.Fprintf(&b, "command = %s\nrestart = \"on-failure\"\nmax_restarts = 5\n", initCommand(argv))
	if ok {
		b.WriteString(initEnv(preset))
	}
	if c.Init.Commented != "" {
		fmt.Fprintf(&b, "# %s\n", c.Init.Commented)
	}
	b.WriteString("# memory_max = \"4GB\"   # a cgroup limit where warden may make one, else a watch on its RSS: checkpoint, restart\n")
	fmt.Fprintf(&b, "# account = %s   # agents on one account are parked together at its usage limit (default: the same CLI and config home)\n",
		tomlValue(c.Name+"-plan"))
	return b.String()
}

// tomlValue is v as TOML writes it (a string, an array of strings).
func tomlValue(v any) string {
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err != nil {
		panic(fmt.Sprintf("init: encode %v: %v", v, err)) // strings always encode
	}
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
}

// cliList collects repeated --cli flags.
type cliList []string

func (c *cliList) String() string { return strings.Join(*c, ",") }

func (c *cliList) Set(v string) error {
	if !slices.Contains(initNames(), v) {
		return fmt.Errorf("want one of %s", strings.Join(initNames(), ", "))
	}
	*c = append(*c, v)
	return nil
}

// cmdInit writes a commented team file for the CLIs named, or those found
// on PATH; it never overwrites a file.
func cmdInit(args []string, stdout, stderr io.Writer) error {
	cmd := newCommand("init", initUsage(), stderr)
	var clis cliList
	cmd.Var(&clis, "cli", "an agent CLI to write an agent for: "+strings.Join(initNames(), ", ")+" (repeatable; default: those on PATH)")
	pos, err := cmd.args(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return cmd.badUsage()
	}
	path := "team.toml"
	if len(pos) == 1 {
		path = pos[0]
	}
	found := map[string]string{}
	if len(clis) == 0 {
		for _, c := range initCLIs() {
			if len(c.Programs) == 0 {
				continue
			}
			if p, err := exec.LookPath(c.Init.Command[0]); err == nil {
				clis, found[c.Name] = append(clis, c.Name), p
			}
		}
		if len(clis) == 0 {
			clis = cliList{profile.PlainName}
		}
	}
	text := initTeam(path, dedup(clis), found, findProject(filepath.Dir(path)))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return &exitError{code: 1, err: fmt.Errorf("init: %s exists: warden init never overwrites a file (name another FILE)", path)}
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "wrote %s: agents %s\n", path, strings.Join(dedup(clis), ", "))
	fmt.Fprintf(stdout, "next: edit its [[task]], then `warden validate %s` and `warden run %s`\n", path, path)
	return nil
}

// initTeam is the team file init writes for clis in project p; found has
// the paths of the CLIs found on PATH.
func initTeam(path string, clis []string, found map[string]string, p project) string {
	var b strings.Builder
	how := "named with --cli"
	if len(found) > 0 {
		how = "found on PATH"
	}
	fmt.Fprintf(&b, `# A warden team, written by warden init on %s (CLIs %s: %s).
# Every key and its default: docs/team-file.md in warden's repository.
# Check this file with `+"`warden validate %s`"+`, start it with
# `+"`warden run %s`"+`, and look at it with `+"`warden status`"+` from this directory.
%sname = %q
state_dir = ".warden"            # checkpoints, logs, events.jsonl, STATUS.md: add it to .gitignore

# Checkpoints: warden asks each busy agent for one this long after its last,
# and expects the answer within checkpoint_timeout.
checkpoint_interval = "5m"
checkpoint_timeout = "1m"
# No output and no checkpoint for stale_warning: a WARNING (keep it above
# checkpoint_interval + checkpoint_timeout); for stale_failure: restarted
# from its last checkpoint.
stale_warning = "10m"
stale_failure = "30m"
shutdown_timeout = "30s"
# When an agent's context is this %% full (as its CLI reports it), a team
# checkpoint: every agent checkpoints, warden writes handoff.md and starts
# fresh sessions that carry on from it.
context_threshold = 80
after_team_checkpoint = "rehydrate"
# An agent whose CLI waits on a permission dialog: "wait" for a person, or
# "deny" it after dialog_timeout. warden never approves anything.
on_dialog = "wait"
dialog_timeout = "15m"
# For a night: a team checkpoint and exit after max_runtime, or at stop_at.
# max_runtime = "8h"
# stop_at = "07:00"
# An account's usage limit (a Claude plan's 5-hour window, Codex's): every
# agent of the account is parked until the reset, then carries on ("wait");
# or "checkpoint-exit": a team checkpoint and exit 0, for a timer to start
# the next run after the reset. usage_limit_wait: when no reset time is given.
# on_limit = "wait"
# usage_limit_wait = "1h"
# What the night may spend, every session of every agent counted: at
# cost_warning %% of a budget a WARNING; at the budget a team checkpoint and
# exit, or with on_budget = "pause" every agent parked until `+"`warden resume`"+`.
# Claude Code prices its own sessions; [[price]] rows (below) price the rest.
# max_cost = 40.0
# max_tokens = 50_000_000
# cost_warning = 80
# on_budget = "checkpoint-exit"
# A git worktree and branch per task (this file must be in a git repository):
# workspace = "worktree"
# The machine's memory: at most max_running agents at once, and none started
# that would take MemAvailable under memory_floor (warden learns what each
# CLI takes from the agents running); the others wait their turn.
# max_running = 6
# memory_floor = "2GB"

# A notification when something needs you (the event's JSON on stdin):
# [[notify]]
# events = ["agent_waiting", "agent_stalled", "agent_failed", "task_failed", "usage_limit_wait", "budget_exceeded", "team_done"]
# command = ["notify-send", "warden"]
# min_interval = "10m"

# Dollars per million tokens, for the CLIs that do not price their own
# sessions (Codex, Gemini CLI); the first row whose model glob matches.
# [[price]]
# model = "gpt-5*"
# input = 1.25
# cached_input = 0.125
# output = 10.0
`, time.Now().Format(time.DateOnly), how, strings.Join(clis, ", "), path, path, commentLines("The project: "+p.said()+"."), teamName(path))
	known := initCLIs()
	for _, name := range clis {
		i := slices.IndexFunc(known, func(c profile.CLI) bool { return c.Name == name })
		if i < 0 {
			continue // cliList.Set let only known ones in
		}
		b.WriteString("\n")
		if p := found[name]; p != "" {
			fmt.Fprintf(&b, "# found: %s\n", p)
		}
		b.WriteString(initAgent(known[i], p))
	}
	b.WriteString(`
# The tasks: a free agent takes the next one whose blocked_by tasks are
# complete. Without any [[task]], warden just supervises the agents.
[[task]]
id = "T1"
title = "Describe the first task"
prompt = """
What to build, where, and how to tell it is done.
"""
# verify = ` + verifyValue(p) + `   # run when the agent says it is done
# max_attempts = 5                   # sessions, restarts counted; then the task fails
# estimate = "2h"                    # shown beside the time worked (STATUS.md, warden status, the handoff)
# max_cost = 5.0                    # what this task may spend in a run: then its session stops and it fails

# [[task]]
# id = "T2"
# title = "The next task"
# prompt = "…"
# blocked_by = ["T1"]
`)
	return b.String()
}

// teamName is a team name from the directory the file goes in.
func teamName(path string) string {
	dir, err := filepath.Abs(filepath.Dir(path))
	name := "team"
	if err == nil && filepath.Base(dir) != "/" {
		name = strings.Map(func(r rune) rune {
			if r == '.' || r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
				return r
			}
			return '-'
		}, filepath.Base(dir))
	}
	return name
}

// dedup keeps the first of each name, in order.
func dedup(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
