// Package profile knows each agent CLI warden drives: plain line-oriented
// programs, Claude Code, Codex CLI and Gemini CLI. A Profile says how to
// start the CLI under a supervisor, when it is at its input prompt, busy,
// done with a turn or waiting on a dialog, how to submit text so that it is
// really submitted, how to deny a dialog and ask the CLI to quit, how to
// read its usage limit (its banner, its warning before the limit, whether
// it continues by itself at the reset, and its own limit dialog with the
// answer that changes nothing), which of its hooks report to warden and what
// their payloads say, and the per-agent settings that install those hooks
// and the protocol text. Everything about one CLI — its wording, flags,
// environment, hook settings and payloads, the permission flags `warden
// validate` looks for and the agent `warden init` writes — is in that CLI's
// file (claude.go, codex.go, gemini.go; plain in profile.go), which
// registers it (Register, registry.go): adding a CLI is one file and its
// tests. Payloads and screens were recorded from Claude Code 2.1.332, Codex
// CLI 0.169.0 and Gemini CLI 0.61.0 (testdata/, ../testdata/).
package profile

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
)

// Screen is what a profile looks at: the visible screen as text rows, top to
// bottom (protocol.Screen's Rows, trailing spaces trimmed), and whether the
// program enabled bracketed paste (CSI ?2004h; see ModeTracker).
type Screen interface {
	Rows() []string
	Bracketed() bool
}

// Keys is one write to the agent, made after Pause.
type Keys struct {
	Bytes []byte
	Pause time.Duration
}

// Profile is how warden drives one kind of agent CLI. For returns a fresh
// one; its exported fields may be tuned before use.
type Profile struct {
	Name string
	// Mode is how protocol.Reader reads the agent: ModeLines for plain
	// programs, ModeScreen for the TUIs.
	Mode protocol.Mode
	// Settle is how long output must be quiet before the screen is parsed.
	Settle time.Duration
	// SettleMax, when set, is how long output may go on without a pause of
	// Settle before the screen is parsed anyway (a CLI that animates while
	// it waits).
	SettleMax time.Duration
	// TurnQuiet (plain) is how long output must be quiet to count as the end
	// of a turn; the TUIs say so on screen instead.
	TurnQuiet time.Duration
	// EnterDelay is the pause between typing the text and pressing Enter
	// (Gemini needs ≥600 ms after a paste, Codex >120 ms).
	EnterDelay time.Duration
	// SubmitWindow is how long Submit waits for a turn to start after Enter
	// before it presses Enter again; each retry waits twice as long.
	SubmitWindow time.Duration
	// EnterTries is how many times Submit presses Enter at most.
	EnterTries int
	// Poll is how often Submit looks at the screen.
	Poll time.Duration
	// LimitRetry is the wait UsageLimit reports when a banner gives no
	// reset time ("Please try again later").
	LimitRetry time.Duration
	// Clock times Submit's pauses; the wall clock by default.
	Clock clock.Clock
	// DropReplies: the terminal emulator's answers to the CLI's queries
	// (DA1, cursor position) are not sent to it. Gemini CLI starts without
	// them, and reads one that reaches it late as keys: the "1" of a DA1
	// answer picks "1. Allow once" in its approval dialog.
	DropReplies bool

	log  hclog.Logger
	cli  *CLI      // what the CLI registered: programs, flags, hooks, settings
	tui  *tuiRules // nil for line-oriented programs
	env  []string  // added by Env unless already set
	quit []Keys
	cont string
	// pasted is what the CLI shows in its input box in place of a pasted
	// text (OpenCode's "[Pasted ~N lines]"), "" when it shows the text.
	pasted func(text string) string
	// busyStarts: only a busy screen proves a turn started, not the box
	// emptied after Enter (OpenCode clears its box at once, then may take
	// a second to take the text; an Enter for the next text meanwhile is
	// lost).
	busyStarts bool
	// redrawsAfterEnter: after Enter the CLI may show neither its box nor
	// a turn for seconds (OpenCode opening its session view, Qwen Code
	// between its box and its spinner), and Submit waits for what it
	// draws next.
	redrawsAfterEnter bool
	// pasteWait: the CLI turns bracketed paste on once its input box reads
	// keys, and Submit waits up to this long for it before typing. Gemini
	// CLI 0.61 draws its empty box a render before it turns it on; a text
	// typed then arrives as keys, and a "?" among them, read while the box
	// still counts as empty, opens its shortcuts panel and is lost. Every
	// built-in CLI turns it on (the recordings in protocol/testdata);
	// without it after the wait, the text is typed as keys, on one line.
	pasteWait time.Duration
}

// TurnsBracketedOn reports whether the CLI turns bracketed paste on (every
// built-in TUI does): a session warden takes back mid-run (the holder) has
// not seen it do so.
func (p *Profile) TurnsBracketedOn() bool { return p.pasteWait > 0 }

// WithLogger returns a copy of p that logs to logger, named "profile".
func (p *Profile) WithLogger(logger hclog.Logger) *Profile {
	c := *p
	c.log = logger.Named("profile").With("profile", p.Name)
	return &c
}

// tuiDefaults fills the settings the TUIs share.
func tuiDefaults(p *Profile) *Profile {
	p.Mode = protocol.ModeScreen
	p.EnterDelay = 700 * time.Millisecond
	p.SubmitWindow = 2 * time.Second
	p.EnterTries = 3
	p.Poll = 25 * time.Millisecond
	p.LimitRetry = 15 * time.Minute
	p.pasteWait = 10 * time.Second
	p.cont = "continue"
	p.env = []string{"TERM=xterm-256color", "COLORTERM=truecolor"}
	return p
}

// Command returns argv with what the CLI needs under a supervisor added
// right after the CLI's program name (Codex: --no-alt-screen, --no-daemon),
// each flag only if argv does not already carry it. argv is not modified.
// A command that does not name the CLI (a shell wrapper) is left alone.
func (p *Profile) Command(argv []string) []string {
	out := slices.Clone(argv)
	if len(p.cli.Flags) == 0 {
		return out
	}
	at := -1
	for i, a := range argv {
		if slices.Contains(p.cli.Programs, filepath.Base(a)) {
			at = i
			break
		}
	}
	if at < 0 {
		p.log.Debug("command does not name the CLI; flags not added", "program", argv[0])
		return out
	}
	var add []string
	for _, f := range p.cli.Flags {
		if !hasFlag(argv[at+1:], f) {
			add = append(add, f)
		}
	}
	return slices.Insert(out, at+1, add...)
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// Env returns env with the variables the CLI needs under a supervisor
// (TERM, COLORTERM for the TUIs) added unless env already sets them.
func (p *Profile) Env(env []string) []string {
	out := slices.Clone(env)
	for _, kv := range p.env {
		name := kv[:strings.IndexByte(kv, '=')+1]
		if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, name) }) {
			out = append(out, kv)
		}
	}
	return out
}

// Quit returns the keys that ask the CLI to exit, in order.
func (p *Profile) Quit() []Keys { return slices.Clone(p.quit) }

// Continue is what to type when a usage-limit wait is over.
func (p *Profile) Continue() string { return p.cont }

// Ready reports whether the CLI is at its input prompt: the input box is
// drawn, no turn runs and no dialog waits for an answer. Plain programs are
// always ready.
func (p *Profile) Ready(s Screen) bool {
	if p.tui == nil {
		return true
	}
	return p.tui.view(s.Rows()).ready()
}

// Busy reports whether a turn is running.
func (p *Profile) Busy(s Screen) bool {
	if p.tui == nil {
		return false
	}
	return p.tui.view(s.Rows()).busy()
}

// InputEmpty reports whether the input box is drawn and holds no text (a
// placeholder counts as empty).
func (p *Profile) InputEmpty(s Screen) bool {
	if p.tui == nil {
		return true
	}
	return p.tui.view(s.Rows()).inputEmpty()
}

// TurnEnded reports a turn boundary, where a checkpoint request may be
// typed: ready, and nothing half-typed in the input box. Read it on a
// settled screen (output quiet for Settle): right after Enter, Claude
// empties its box a moment before its busy footer appears.
func (p *Profile) TurnEnded(s Screen) bool {
	if p.tui == nil {
		return true
	}
	v := p.tui.view(s.Rows())
	return v.ready() && v.inputEmpty()
}

// RequestDraft reports whether the input box holds a checkpoint request
// that was typed and never submitted, and the request's task: the CLI
// ready (no turn, no dialog), its box showing a line that begins
// protocol.RequestPrefix. A warden killed between typing a request and
// its Enter leaves one there. Plain programs have no box: never.
func (p *Profile) RequestDraft(s Screen) (task string, ok bool) {
	if p.tui == nil {
		return "", false
	}
	v := p.tui.view(s.Rows())
	if !v.ready() || v.inputEmpty() {
		return "", false
	}
	return protocol.RequestTask(protocol.FirstLine(strings.TrimSpace(v.text)))
}

// PlainName is the profile of an agent whose team file names none.
const PlainName = "plain"

func init() {
	Register(CLI{
		Name: PlainName,
		New:  plainProfile,
		// A plain program may be a wrapper of any CLI: its hooks are read.
		anyKind:   true,
		Footprint: 512 << 20, // a plain program: 512 MiB until learned
		Init: InitAgent{
			Name: "agent",
			Comment: "Any interactive program that reads its prompt from the terminal and\n" +
				"answers warden's CHECKPOINT REQUEST lines (the first prompt says how).",
			Command: []string{"aider", "--yes-always"},
		},
	})
}

// plainProfile drives a line-oriented program: its output is read line by
// line, a line of text followed by "\n" is a submission, and EOF (Ctrl-D)
// asks it to end. No screen is read. It is also the profile of a
// registered CLI without a New of its own.
func plainProfile() *Profile {
	return &Profile{
		Mode:      protocol.ModeLines,
		Settle:    100 * time.Millisecond,
		TurnQuiet: 1500 * time.Millisecond,
		Poll:      25 * time.Millisecond,
		quit:      []Keys{{Bytes: []byte{0x04}}},
		cont:      "continue",
	}
}

// homeSub is sub in the home directory env names, or "" without one.
func homeSub(env func(string) string, sub string) string {
	if h := env("HOME"); h != "" {
		return filepath.Join(h, sub)
	}
	return ""
}
