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

// presetReaders are the commands that read files, allowed in every preset.
var presetReaders = []string{"ls", "cat", "head", "tail", "wc", "grep", "diff", "pwd"}

// DefaultTools are the project's own commands in the preset PresetOf gives
// (a Go project with a Makefile): the one TestRealPresetsNeverAsk holds to
// its promise. `warden init` picks them from what the project has
// (PresetFor).
var DefaultTools = []string{"go", "gofmt", "make"}

// presetCommands are the commands the Claude Code, Gemini CLI and OpenCode
// presets allow, each with any arguments: the project's tools (its builds
// and tests), git inside the repository, and reading files. A command on
// the list runs whatever it runs (go run, npm test, make: the project's
// own code).
func presetCommands(tools []string) []string {
	out := slices.Clone(tools)
	for _, sub := range presetGit {
		out = append(out, "git "+sub)
	}
	return append(out, presetReaders...)
}

// presetSays is what a preset's comment says it runs without asking.
func presetSays(tools []string) string {
	return strings.Join(append(slices.Clone(tools), "git (not push/fetch/pull)"), ", ") +
		" and " + strings.Join(presetReaders[:len(presetReaders)-1], "/")
}

// presetComment is a preset's comment, its lines at most 84 characters.
func presetComment(text string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 84 {
			lines, line = append(lines, line), ""
		}
		line = strings.TrimPrefix(line+" "+w, " ")
	}
	return strings.Join(append(lines, line), "\n")
}

// presets build each CLI's preset for the project's tools.
var presets = map[string]func(tools []string) Preset{
	"claude": claudePresetFor, "codex": func([]string) Preset { return codexPreset },
	"gemini": geminiPresetFor, "opencode": opencodePresetFor,
}

// PresetFor returns the preset of the CLI called name for a project whose
// own commands are tools (go and gofmt for go.mod, npm for package.json,
// …): those, git inside the repository and reading files run without
// asking. ok is false for a CLI that has none.
func PresetFor(name string, tools []string) (Preset, bool) {
	build, ok := presets[name]
	if !ok {
		return PresetOf(name)
	}
	return build(tools), true
}

// claudePreset: dontAsk mode refuses whatever would draw a dialog; the
// allow rules name what runs (Edit rules cover every file-editing tool;
// ./** is the project, relative to where Claude Code starts).
var claudePreset = claudePresetFor(DefaultTools)

func claudePresetFor(tools []string) Preset {
	args := []string{"--permission-mode", "dontAsk", "--allowedTools", "Edit(./**)", "Write(./**)"}
	for _, c := range presetCommands(tools) {
		args = append(args, "Bash("+c+":*)")
	}
	return Preset{Args: args, Comment: presetComment("Preset \"project\" (docs/agent-clis.md): Claude Code edits files in the project " +
		"and runs " + presetSays(tools) + " without asking; anything else (other commands, edits outside the project, web " +
		"fetches) is refused at once (dontAsk) and the agent carries on. Add what you trust " +
		"to --allowedTools; --dangerously-skip-permissions approves everything: only in a sandbox.")}
}

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
var geminiPreset = geminiPresetFor(DefaultTools)

func geminiPresetFor(tools []string) Preset {
	// One --allowed-tools an entry (the flag repeats), for the team
	// file's lines.
	args := []string{"--approval-mode", "auto_edit"}
	for _, c := range presetCommands(tools) {
		args = append(args, "--allowed-tools", "run_shell_command("+c+")")
	}
	return Preset{Args: args,
		Comment: presetComment("Preset \"project\" (docs/agent-clis.md): Gemini CLI edits files in the project and " +
			"runs " + presetSays(tools) + " without asking; any other shell command is refused at once and the agent carries " +
			"on. auto_edit also lets it fetch web pages (web_fetch).")}
}

// opencodePreset: OpenCode's permission config through OPENCODE_PERMISSION
// (JSON, merged over its config): the last bash pattern that matches a
// command decides, so "*" (deny) comes first; edits are allowed, and what
// OpenCode would otherwise ask (a path outside the project, a loop of the
// same failing call, a web fetch) is denied.
var opencodePreset = opencodePresetFor(DefaultTools)

func opencodePresetFor(tools []string) Preset {
	// JSON over lines of at most 80 characters, as init writes it.
	perm := "{\"edit\": \"allow\", \"webfetch\": \"deny\", \"external_directory\": \"deny\", \"doom_loop\": \"deny\",\n" +
		" \"bash\": {\"*\": \"deny\","
	line := ""
	cmds := presetCommands(tools)
	for i, c := range cmds {
		entry := fmt.Sprintf("%q: \"allow\"", c+" *")
		if i < len(cmds)-1 {
			entry += ","
		}
		if line != "" && len(line)+1+len(entry) > 78 {
			perm, line = perm+"\n  "+line, ""
		}
		line = strings.TrimPrefix(line+" "+entry, " ")
	}
	perm += "\n  " + line + "}}"
	return Preset{Env: map[string]string{"OPENCODE_PERMISSION": perm},
		Comment: presetComment("Preset \"project\" (docs/agent-clis.md): OpenCode edits files in the project and runs " +
			presetSays(tools) + " without asking; any other command, a path outside the project and web fetches are refused " +
			"at once (OPENCODE_PERMISSION) and the agent carries on.")}
}
