package profile

import (
	"fmt"
	"slices"
	"strings"
)

// Preset is a CLI's permission settings for a night that needs nobody:
// work inside the project runs without a dialog, and what is outside it is
// refused at once by the CLI itself, so that the agent never waits for a
// person and carries on with the refusal as its tool result. `warden init`
// writes it (docs/agent-clis.md, "Presets: a night that needs nobody");
// TestRealPresetsNeverAsk holds each one to it with the real CLI.
type Preset struct {
	// Args follow the program name.
	Args []string
	// Env is set in the agent's environment (the team file's env).
	Env map[string]string
	// Comment is what init writes above the command: what the preset
	// allows and what it refuses, one "# " line each.
	Comment string
}

// Command is the preset's command line for program.
func (p Preset) Command(program string) []string {
	return append([]string{program}, p.Args...)
}

// PresetOf returns the preset of the CLI called name; ok is false for a
// CLI that has none (plain, or a CLI not verified with one yet).
func PresetOf(name string) (p Preset, ok bool) {
	c := lookup(name)
	if c == nil || c.Preset == nil {
		return Preset{}, false
	}
	p = *c.Preset
	p.Args = slices.Clone(p.Args)
	return p, true
}

// presetGit are the git subcommands that stay inside the project's
// repository (no push, fetch, pull or clone: they reach the network).
var presetGit = []string{"status", "diff", "log", "show", "add", "commit", "restore", "checkout",
	"switch", "branch", "stash", "mv", "rm", "grep", "rev-parse", "ls-files"}

// presetCommands are the commands the Claude Code and Gemini CLI presets
// allow, each with any arguments: Go's and make's builds and tests, git
// inside the repository, and reading files. A command on the list runs
// whatever it runs (go run, make, go test of the project's own code).
func presetCommands() []string {
	out := []string{"go", "gofmt", "make"}
	for _, sub := range presetGit {
		out = append(out, "git "+sub)
	}
	return append(out, "ls", "cat", "head", "tail", "wc", "grep", "diff", "pwd")
}

// claudePreset: dontAsk mode refuses whatever would draw a dialog; the
// allow rules name what runs (Edit rules cover every file-editing tool;
// ./** is the project, relative to where Claude Code starts).
var claudePreset = func() Preset {
	args := []string{"--permission-mode", "dontAsk", "--allowedTools", "Edit(./**)", "Write(./**)"}
	for _, c := range presetCommands() {
		args = append(args, "Bash("+c+":*)")
	}
	return Preset{Args: args, Comment: "Preset \"project\" (docs/agent-clis.md): Claude Code edits files in the project\n" +
		"and runs go, gofmt, make, git (not push/fetch/pull) and ls/cat/head/tail/wc/grep/diff\n" +
		"without asking; anything else (other commands, edits outside the project, web\n" +
		"fetches) is refused at once (dontAsk) and the agent carries on. Add what you trust\n" +
		"to --allowedTools; --dangerously-skip-permissions approves everything: only in a sandbox."}
}()

// codexPreset: commands run in Codex's workspace sandbox (the project and
// /tmp writable, no network); a call that asks for escalation is refused
// by Codex itself under --ask-for-approval never.
var codexPreset = Preset{
	Args: []string{"--ask-for-approval", "never", "--sandbox", "workspace-write"},
	Comment: "Preset \"project\" (docs/agent-clis.md): every command runs in Codex's workspace\n" +
		"sandbox (writes in the project and /tmp, no network) without asking; a request to\n" +
		"run outside it is refused at once and the agent carries on.",
}

// geminiPreset: auto_edit approves edits (inside the workspace: the
// allowed-path check); --allowed-tools with run_shell_command(PREFIX)
// entries allows those commands and, in Gemini CLI 0.61, denies every
// other shell command without asking (the allowlist's "narrowing" deny
// rule, above the default policy's ask).
var geminiPreset = func() Preset {
	// One --allowed-tools an entry (the flag repeats), for the team
	// file's lines.
	args := []string{"--approval-mode", "auto_edit"}
	for _, c := range presetCommands() {
		args = append(args, "--allowed-tools", "run_shell_command("+c+")")
	}
	return Preset{Args: args,
		Comment: "Preset \"project\" (docs/agent-clis.md): Gemini CLI edits files in the project and\n" +
			"runs go, gofmt, make, git (not push/fetch/pull) and ls/cat/head/tail/wc/grep/diff\n" +
			"without asking; any other shell command is refused at once and the agent carries\n" +
			"on. auto_edit also lets it fetch web pages (web_fetch)."}
}()

// opencodePreset: OpenCode's permission config through OPENCODE_PERMISSION
// (JSON, merged over its config): the last bash pattern that matches a
// command decides, so "*" (deny) comes first; edits are allowed, and what
// OpenCode would otherwise ask (a path outside the project, a loop of the
// same failing call, a web fetch) is denied.
var opencodePreset = func() Preset {
	// JSON over lines of at most 80 characters, as init writes it.
	perm := "{\"edit\": \"allow\", \"webfetch\": \"deny\", \"external_directory\": \"deny\", \"doom_loop\": \"deny\",\n" +
		" \"bash\": {\"*\": \"deny\","
	line := ""
	for i, c := range presetCommands() {
		entry := fmt.Sprintf("%q: \"allow\"", c+" *")
		if i < len(presetCommands())-1 {
			entry += ","
		}
		if line != "" && len(line)+1+len(entry) > 78 {
			perm, line = perm+"\n  "+line, ""
		}
		line = strings.TrimPrefix(line+" "+entry, " ")
	}
	perm += "\n  " + line + "}}"
	return Preset{Env: map[string]string{"OPENCODE_PERMISSION": perm},
		Comment: "Preset \"project\" (docs/agent-clis.md): OpenCode edits files in the project and runs\n" +
			"go, gofmt, make, git (not push/fetch/pull) and ls/cat/head/tail/wc/grep/diff without\n" +
			"asking; any other command, a path outside the project and web fetches are refused\n" +
			"at once (OPENCODE_PERMISSION) and the agent carries on."}
}()
