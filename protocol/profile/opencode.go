package profile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
)

// OpenCode (measured on 1.18.33, protocol/testdata/cli-opencode), a TUI
// (opentui) on the alternate screen. Every piece of OpenCode's wording
// warden relies on is in this file.
//
// The input box is a run of rows starting with "┃" closed by a "╹▀▀▀…" row
// (in colour only on the first screen), then a status row with hints ("tab
// agents  ctrl+p commands"): the text rows, then the agent and model
// ("Build · Fake Model Fake") as its last "┃" row. Empty on the first screen it shows a placeholder 'Ask
// anything… "What is the tech stack of this project?"' (the example
// varies), later nothing. Sent messages stay in the transcript as "┃" rows
// without the closing edge; so do tool calls' outputs. Answers are plain
// rows indented by five; a turn ends with "▣  Build · MODEL · 799ms" and
// runs with "esc interrupt" under the box. Above 120 columns a sidebar on
// the right shows the title, "Context / 120,180 tokens / 60% used / $0.00
// spent"; the row under the box ends with the same figures ("120.2K (60%)")
// at any width. OpenCode asks for nothing by default (its bash and edit
// permissions are "allow"); with a permission set to "ask" it draws, in
// place of the input box, "△ Permission required", "# Shell command", the
// command, and "Allow once   Allow always   Reject" with "Allow once"
// preselected (Enter approves); Esc rejects (the tool row stays, the turn
// ends, nothing reaches the model). Ctrl-C at an empty box quits; the
// window title is "OC | <session title>".

var opencodeRules = &tuiRules{
	composer: opencodeComposer,
	echoes:   opencodeEchoes,
	busy: res(
		`esc interrupt`,
	),
	// Each turn ends with a "▣  Build · MODEL · 1.2s" row (without the time
	// when the turn was interrupted). A message sent below the last of them
	// is a turn at work before "esc interrupt" shows: on a loaded machine
	// OpenCode took more than a second to draw it, and an Enter pressed
	// meanwhile for the next text was lost (the text stayed in the box).
	turnEnd: res(
		`^\s*▣  `,
	),
	noAnswer: "OpenCode draws its choices side by side and marks the selected one by its colour alone, " +
		"which warden does not read: answer it with warden attach --rw",
	dialog: concat(
		dialogs(DialogPermission,
			`△ Permission required`,
			`Allow once\s+Allow always\s+Reject`,
		),
		dialogs(DialogOther,
			`⇆ select\s+enter confirm`,
		),
	),
	limitRead: opencodeLimit,
}

// OpenCode's usage limit (../testdata/cli-opencode/usage-limit-200x50): the
// provider's error message on the status row under the input box, and
// when it will send the request again, from the provider's retry-after:
//
//	⬝⬝⬝⬝⬝⬝⬝⬝ You exceeded your current quota, … [retrying in 4h 59m attempt #1]   esc interrupt
//
// The turn stays busy until then and OpenCode retries by itself (a limit
// that AutoResumes); a per-minute rate limit reads the same with a shorter
// wait. Only a message naming a quota or a limit counts: other errors
// OpenCode retries are not limits.
var (
	opencodeRetry      = regexp.MustCompile(`^\s*[⬝■]*\s*(.*?)\s*\[retrying in ([^\]]+?) attempt #\d+\]`)
	opencodeLimitWords = regexp.MustCompile(`(?i)quota|usage limit|rate limit|too many requests`)
)

func opencodeLimit(v *view, now time.Time) limitSigns {
	for _, i := range v.own() {
		m := opencodeRetry.FindStringSubmatch(v.rows[i])
		if m == nil || !opencodeLimitWords.MatchString(m[1]) {
			continue
		}
		l := &Limit{Kind: LimitReached, AutoResume: true, Text: strings.TrimSpace(m[1] + " [retrying in " + m[2] + "]")}
		if d, ok := parseDuration(m[2]); ok {
			l.Reset = now.Add(d)
		} else if at, ok := resetTime(m[1], now); ok {
			l.Reset = at
		}
		return limitSigns{reached: l}
	}
	return limitSigns{}
}

func init() {
	Register(CLI{
		Name:     "opencode",
		Programs: []string{"opencode"},
		New:      opencodeProfile,
		Settings: opencodeSettings,
		// OpenCode's defaults already let it edit and run commands without
		// asking (measured: a model's bash call ran at once); its
		// permissions come from its config or OPENCODE_PERMISSION (JSON),
		// which a team file sets through env. Either counts.
		Unattended: UnattendedRule{
			Env: func(env map[string]string) bool { return true },
		},
		Preset: &opencodePreset,
		Init:   InitAgent{Comment: opencodePreset.Comment, Command: []string{"opencode"}},
	})
}

func opencodeProfile() *Profile {
	p := tuiDefaults(&Profile{tui: opencodeRules})
	p.Settle = 300 * time.Millisecond
	// Its retry line at a usage limit animates ("⬝⬝■⬝…") for as long as
	// it waits: the output is never quiet for Settle.
	p.SettleMax = 2 * time.Second
	// Ctrl-C at an empty box quits; a second one, should the first have
	// only cleared the box or stopped a turn. 2 s apart: quitting takes
	// OpenCode more than 700 ms on a loaded machine, and a Ctrl-C that
	// comes once it has given the terminal back is the kernel's SIGINT.
	p.quit = []Keys{{Bytes: []byte{0x03}}, {Bytes: []byte{0x03}, Pause: 2 * time.Second}}
	p.pasted = opencodePasted
	// Measured under warden on a loaded machine: the box emptied after
	// the first prompt's Enter, the next text was pasted and its Enter
	// pressed before OpenCode drew the message, and that Enter was lost
	// (the text stayed in the box, unsent). A turn has started when it
	// shows (its message below the last "▣" row, or "esc interrupt"),
	// within 5 s.
	p.busyStarts, p.redrawsAfterEnter = true, true
	p.SubmitWindow = 5 * time.Second
	return p
}

// opencodePasted is what OpenCode's input box shows in place of a pasted
// text of 3 lines or more, or more than 150 characters (its paste summary,
// on by default; measured in 1.18.33's code and recordings): "[Pasted ~N
// lines]", N the newlines plus one of the text trimmed (JavaScript's trim:
// a text that ends with a newline shows one line fewer), its length in
// UTF-16 units.
func opencodePasted(text string) string {
	text = strings.TrimFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })
	lines := strings.Count(text, "\n") + 1
	if lines < 3 && len(utf16.Encode([]rune(text))) <= 150 {
		return ""
	}
	return fmt.Sprintf("[Pasted ~%d lines]", lines)
}

// opencodeGap cuts the sidebar off a row: its text starts after a run of
// spaces at the right (3 or more; OpenCode's own rows use single spaces).
var opencodeGap = regexp.MustCompile(`\s{3,}\S.*$`)

// opencodePlaceholder is the first screen's hint in the empty box.
var opencodePlaceholder = regexp.MustCompile(`^Ask anything… ".*"$`)

// opencodeBar reports whether a row is a "┃" row, the bar (at any column:
// the first screen centers the box) and its text.
func opencodeBar(row string) (string, bool) {
	t := strings.TrimLeft(row, " ")
	rest, ok := strings.CutPrefix(t, "┃")
	if !ok {
		return "", false
	}
	return strings.TrimSpace(opencodeGap.ReplaceAllString(rest, "")), true
}

// opencodeStatus is the row under the input box: its hints ("tab agents",
// "ctrl+p commands"), or "esc interrupt" while a turn runs.
var opencodeStatus = regexp.MustCompile(`ctrl\+p commands|esc interrupt|tab agents`)

// opencodeComposer is the run of "┃" rows above the status row (past the
// box's "╹▀▀" edge, which the first screen draws in colour only, and blank
// rows); its text leaves out the last row (agent and model) and a
// placeholder. While OpenCode redraws, the status row may not be there
// yet: no box.
func opencodeComposer(rows []string) (span, string, bool) {
	status := -1
	for i := len(rows) - 1; i >= 0 && status < 0; i-- {
		if _, bar := opencodeBar(rows[i]); !bar && opencodeStatus.MatchString(rows[i]) {
			status = i
		}
	}
	if status < 0 {
		return noSpan, "", false
	}
	to := status - 1
	for to >= 0 && status-to <= 2 {
		if _, bar := opencodeBar(rows[to]); bar {
			break
		}
		t := strings.TrimSpace(rows[to])
		if t != "" && !strings.HasPrefix(t, "╹") {
			return noSpan, "", false
		}
		to--
	}
	from := to
	for from > 0 {
		if _, ok := opencodeBar(rows[from-1]); !ok {
			break
		}
		from--
	}
	if to < 0 || from > to {
		return noSpan, "", false
	}
	if _, bar := opencodeBar(rows[to]); !bar {
		return noSpan, "", false
	}
	var lines []string
	for k := from; k < to; k++ {
		t, _ := opencodeBar(rows[k])
		if t != "" && !opencodePlaceholder.MatchString(t) {
			lines = append(lines, t)
		}
	}
	return span{from, status - 1}, strings.Join(lines, "\n"), true
}

// opencodeEchoes are the runs of "┃" rows other than the input box: sent
// messages and tool output. Without an input box, the last run is what
// OpenCode drew in its place (a permission dialog), not an echo.
func opencodeEchoes(rows []string, box span) []span {
	var out []span
	for i := 0; i < len(rows); i++ {
		if box.has(i) {
			continue
		}
		if _, ok := opencodeBar(rows[i]); !ok {
			continue
		}
		j := i
		for j+1 < len(rows) && !box.has(j+1) {
			if _, ok := opencodeBar(rows[j+1]); !ok {
				break
			}
			j++
		}
		out = append(out, span{i, j})
		i = j
	}
	if box.from < 0 && len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out
}

// opencodeProtocolFile holds warden's protocol, inside the agent's dir.
const opencodeProtocolFile = "opencode-protocol.md"

// opencodeSettings puts the protocol where OpenCode keeps instructions
// across a compaction: a file named in its config's "instructions", which
// it reads into the system prompt. The config comes through
// OPENCODE_CONFIG_CONTENT (merged over the user's own config files); one
// the agent's environment already sets keeps its keys and gets the file
// added to its instructions. OpenCode's plugins (its events) are not
// installed yet: answers, dialogs and limits are read off the screen.
func opencodeSettings(o Options, files map[string][]byte) ([]string, []string, error) {
	if o.Protocol == "" {
		return nil, nil, nil
	}
	path := filepath.Join(o.Dir, opencodeProtocolFile)
	files[path] = []byte(o.Protocol)
	cfg := map[string]any{}
	if own := o.env("OPENCODE_CONFIG_CONTENT"); own != "" {
		if err := json.Unmarshal([]byte(own), &cfg); err != nil {
			return nil, nil, fmt.Errorf("OPENCODE_CONFIG_CONTENT of the agent's env is not a JSON object: %w", err)
		}
	}
	list, _ := cfg["instructions"].([]any)
	cfg["instructions"] = append(list, path)
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("encode opencode config: %w", err)
	}
	return nil, []string{"OPENCODE_CONFIG_CONTENT=" + string(b)}, nil
}
