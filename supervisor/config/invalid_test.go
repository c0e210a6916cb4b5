//go:build !e2e

package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// invalidFiles lists, for every testdata/invalid-*.toml, exactly what Load
// reports: one "file:line:col: message" a line, in file order.
var invalidFiles = map[string][]string{
	"invalid-agent-table.toml": {
		"1:1: agent must be an array of tables ([[agent]]), not table",
	},
	"invalid-blocked-by.toml": {
		`8:15: blocked_by names unknown task "T0"`,
		`8:27: blocked_by lists "T2" twice`,
	},
	"invalid-context-threshold-high.toml": {
		"1:1: context_threshold must be between 1 and 100, not 101",
	},
	"invalid-control-chars.toml": {
		`1:1: team name "nightly\n| forged | row |" contains a control character (U+000A): names and titles must be plain text on one line`,
		`9:1: task title "clear the screen \x1b[2J" contains a control character (U+001B): names and titles must be plain text on one line`,
		`14:1: task title "a CSI \u009b31m in red" contains a control character (U+009B): names and titles must be plain text on one line`,
		`19:1: task title "bell\a and DEL\x7f" contains a control character (U+0007): names and titles must be plain text on one line`,
		`24:1: task title "a tab\tis one too; ✓ is not" contains a control character (U+0009): names and titles must be plain text on one line`,
	},
	"invalid-cycle.toml": {
		"8:1: blocked_by cycle: T1 -> T3 -> T2 -> T1",
		"23:1: blocked_by cycle: T4 -> T4",
	},
	"invalid-duplicate-agent.toml": {
		`6:1: duplicate agent name "w1" (first at line 2)`,
		`10:1: duplicate agent name "W1" ("w1" at line 2 differs only in case)`,
	},
	"invalid-duplicate-task.toml": {
		`10:1: duplicate task id "T1" (first at line 6)`,
	},
	"invalid-duration-nonpositive.toml": {
		`1:1: checkpoint_timeout must be positive, not "0s"`,
		`2:1: stale_warning must be positive, not "-1m"`,
	},
	"invalid-duration.toml": {
		`1:1: checkpoint_interval: invalid duration "5 minutes" (want a Go duration such as "30s", "5m" or "1h30m")`,
		`2:1: shutdown_timeout: invalid duration "30" (want a Go duration such as "30s", "5m" or "1h30m")`,
	},
	"invalid-empty-argv0.toml": {
		"4:3: command[0] must not be empty",
	},
	"invalid-empty-command.toml": {
		"3:1: command must not be empty",
		`5:1: missing key "command" in [[agent]]`,
	},
	"invalid-enum.toml": {
		`1:1: unknown after_team_checkpoint "stop" (want rehydrate or exit)`,
		`2:1: unknown sandbox "landlock" (want box or off)`,
		`7:1: unknown profile "claude-code" (want plain, claude, codex, copilot, gemini, opencode or qwen)`,
		`8:1: unknown restart "sometimes" (want never, on-failure or always)`,
	},
	"invalid-on-overlap.toml": {
		`2:1: unknown on_overlap "block" (want warn or serialize)`,
	},
	"invalid-env.toml": {
		`4:9: env variable name "A=B" must not contain '=' or NUL`,
		"4:22: env variable name must not be empty",
		"9:1: env must be a table of strings, not string",
	},
	"invalid-missing-name.toml": {
		`1:1: missing key "name" in [[agent]]`,
		`4:1: missing key "id" in [[task]]`,
	},
	"invalid-name-chars.toml": {
		`2:1: agent name "my agent" must match [A-Za-z0-9._-]+ (it becomes part of file names)`,
		`6:1: agent name ".." must not be "." or ".."`,
		`10:1: task id "T/1" must match [A-Za-z0-9._-]+ (it becomes part of file names)`,
	},
	"invalid-no-agent.toml": {
		"1:1: a team needs at least one [[agent]]",
	},
	"invalid-notify.toml": {
		`6:28: unknown event "agent_wait"`,
		`6:42: events lists "agent_waiting" twice`,
		"7:1: command must not be empty",
		`8:1: timeout must be positive, not "0s"`,
		`9:1: min_interval must be 0s or more, not "-1m"`,
		`10:1: unknown key "comand" in [[notify]]`,
		`12:1: missing key "command" or "url" in [[notify]]`,
		`13:1: events must not be empty (name events, or "*" for all)`,
		`16:26: "*" must be the only entry of events`,
		`20:1: events must be an array of event names or "*", not the string "all"`,
		"21:12: command[0] must not be empty",
		"25:11: events[0] must be a string, not integer",
		`26:1: timeout must be a duration string such as "5m", not integer`,
		`28:1: unknown key "notify" in [[notify]]`,
	},
	"invalid-prompt.toml": {
		"8:1: task has both prompt and prompt_file; keep one",
		`10:1: missing key "prompt" or "prompt_file" in [[task]]`,
		`16:1: cannot read prompt_file "prompts/nope.md": no such file or directory`,
		`20:1: cannot read prompt_file "prompts": not a regular file`,
		"24:1: prompt must not be empty",
	},
	"invalid-range.toml": {
		"1:1: context_threshold must be between 1 and 100, not 0",
		"6:1: max_restarts must be 0 or more, not -1",
	},
	"invalid-several.toml": {
		`3:1: checkpoint_interval: invalid duration "5 minutes" (want a Go duration such as "30s", "5m" or "1h30m")`,
		"4:1: context_threshold must be between 1 and 100, not 200",
		`6:1: missing key "command" in [[agent]]`,
		`8:1: unknown key "comand" in [[agent]]`,
		`12:1: duplicate agent name "worker-1" (first at line 7)`,
		`14:1: unknown restart "sometimes" (want never, on-failure or always)`,
		"20:1: blocked_by cycle: T1 -> T2 -> T1",
		`21:1: task names unknown agent "worker-9"`,
		`27:21: blocked_by names unknown task "T7"`,
	},
	"invalid-signal-file.toml": {
		`1:1: signal_file "../outside" must be a relative path inside state_dir`,
	},
	"invalid-stale-order.toml": {
		"2:1: stale_failure (10m0s) must be longer than stale_warning (30m0s)",
	},
	"invalid-syntax.toml": {
		"5:21: syntax error: unexpected EOF; expected value",
	},
	"invalid-task-agent.toml": {
		`8:1: task names unknown agent "w2"`,
	},
	"invalid-unattended.toml": {
		`1:1: unknown on_dialog "approve" (want wait or deny)`,
		`2:1: dialog_timeout must be positive, not "0s"`,
		`3:1: max_runtime: invalid duration "all night" (want a Go duration such as "30s", "5m" or "1h30m")`,
		`4:1: stop_at: invalid time "7:00" (want HH:MM in local time, such as "07:00")`,
		`5:1: log_max_size must be at least 1MB, not "512KB"`,
		"6:1: log_keep must be 1 or more, not 0",
		`11:1: unknown on_dialog "yes" (want wait or deny)`,
		`12:1: dialog_timeout must be a duration string such as "5m", not integer`,
		"17:1: max_attempts must be 1 or more, not 0",
		`18:1: max_time must be positive, not "-1h"`,
		`19:1: estimate must be positive, not "0s"`,
		`24:1: estimate must be a duration string such as "5m", not integer`,
		`29:1: estimate: invalid duration "two hours" (want a Go duration such as "30s", "5m" or "1h30m")`,
	},
	"invalid-unknown-key.toml": {
		`2:1: unknown key "checkpoint_intervall"`,
		`6:1: unknown key "comand" in [[agent]]`,
		`12:1: unknown key "blocked-by" in [[task]]`,
		`14:1: unknown key "extra"`,
	},
	"invalid-verify.toml": {
		"8:1: verify must not be empty",
		"13:11: verify[0] must not be empty",
	},
	"invalid-wrong-type.toml": {
		"1:1: name must be a string, not integer",
		`2:1: checkpoint_interval must be a duration string such as "5m", not integer`,
		"6:1: command must be an array of strings, not string",
		"7:1: max_restarts must be an integer, not string",
		"8:9: env.HOME must be a string, not integer",
		"13:1: blocked_by must be an array of strings, not string",
		"14:17: verify[1] must be a string, not integer",
	},
}

func TestLoadInvalid(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid-*.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := invalidFiles[filepath.Base(f)]; !ok {
			t.Errorf("%s has no expected errors in invalidFiles", f)
		}
	}
	for name, want := range invalidFiles {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			team, err := Load(path)
			if team != nil {
				t.Errorf("Load returned a team along with the error")
			}
			es, ok := AsErrors(err)
			if !ok {
				t.Fatalf("Load error = %v (%T), want Errors", err, err)
			}
			var lines []string
			for _, w := range want {
				lines = append(lines, path+":"+w)
			}
			if got, want := es.Error(), strings.Join(lines, "\n"); got != want {
				t.Errorf("errors:\n%s\nwant:\n%s", got, want)
			}
			for _, e := range es {
				if e.Pos.File != path {
					t.Errorf("error %q names file %q, want %q", e, e.Pos.File, path)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "absent.toml"))
	if err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
	if _, ok := AsErrors(err); ok {
		t.Errorf("a missing file is reported as team file problems: %v", err)
	}
	if !strings.Contains(err.Error(), "read team file") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error = %v, want a wrapped not-exist error", err)
	}
}
