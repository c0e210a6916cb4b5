package profile

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// tuiRules is what one TUI profile knows about its screen. The values live
// in the profile's own file; the logic that applies them is here.
type tuiRules struct {
	// composer finds the input box: the rows it covers (borders included)
	// and the text in it. ok is false when no input box is drawn.
	composer func(rows []string) (box span, text string, ok bool)
	// echoes finds the boxes or rows where the CLI shows what the user
	// typed, other than the composer.
	echoes func(rows []string, composer span) []span
	// placeholders are hints the CLI draws in an empty input box.
	placeholders []string
	// emptyHints are footer texts the CLI shows only while the box is empty.
	emptyHints []string
	// busy rows mark a running turn.
	busy []*regexp.Regexp
	// queued is the notice the CLI prints when it takes a prompt into its
	// queue instead of starting a turn (Gemini still initializing): a
	// prompt submitted, its turn to come.
	queued *regexp.Regexp
	// turnEnd rows close a turn. When set, a user echo below the last of
	// them means a turn is running even without a busy row (Codex hides
	// its status while it streams).
	turnEnd []*regexp.Regexp
	// dialog rows mean the CLI waits for a choice, not for text.
	dialog []dialogRule
	// dialogHead is the CLI's row of the tool call a dialog drawn in a box
	// under it asks about (Copilot's "$ Shell DESCRIPTION"): the dialog's
	// text starts at the command under it.
	dialogHead *regexp.Regexp
	// waitingTitle is the window title the CLI sets while a dialog waits.
	waitingTitle *regexp.Regexp
	// limits recognise a usage-limit banner in one paragraph of output;
	// approaching the CLI's warning before the limit.
	limits, approaching []*regexp.Regexp
	// limitRead, when set, reads the CLI's own limit rows before the
	// paragraph rules (Claude: where a row sits tells its banner from
	// typed text, and later rows say whether it continues by itself).
	limitRead func(v *view, now time.Time) limitSigns
	// limitDialog, when set, recognises the CLI's own usage-limit dialog
	// and how to answer it keeping everything as it is; top is its first
	// row.
	limitDialog func(v *view) (keep *LimitKeep, top int, ok bool)
	// allowOnce is the choice of a permission dialog that allows the
	// action this once (never always, never for the session), as the
	// dialog lists it without its selection mark; nil with noAnswer:
	// why warden cannot pick it (answer.go).
	allowOnce *regexp.Regexp
	noAnswer  string
	// personOnly are rows of dialogs warden never answers, not even with
	// on_dialog = "deny" or a person's warden answer: Dialog.PersonOnly
	// (Codex's "Resume paused goal?", codex_goal.go).
	personOnly []*regexp.Regexp
}

// span is rows [from, to] inclusive; from < 0 means none.
type span struct{ from, to int }

var noSpan = span{-1, -1}

func (s span) has(i int) bool { return s.from >= 0 && i >= s.from && i <= s.to }

// view is one screen read with one profile's rules.
type view struct {
	r      *tuiRules
	rows   []string
	box    span
	text   string
	hasBox bool
	echo   []span
}

func (r *tuiRules) view(rows []string) *view {
	v := &view{r: r, rows: rows, box: noSpan}
	v.box, v.text, v.hasBox = r.composer(rows)
	if !v.hasBox {
		v.box = noSpan
	}
	v.echo = r.echoes(rows, v.box)
	return v
}

// typed reports whether row i shows text the user (or warden) typed.
func (v *view) typed(i int) bool {
	if v.box.has(i) {
		return true
	}
	for _, e := range v.echo {
		if e.has(i) {
			return true
		}
	}
	return false
}

// own returns the indexes of rows the CLI drew itself, skipping typed text.
func (v *view) own() []int {
	out := make([]int, 0, len(v.rows))
	for i := range v.rows {
		if !v.typed(i) {
			out = append(out, i)
		}
	}
	return out
}

func (v *view) anyOwn(res []*regexp.Regexp) (int, bool) {
	last := -1
	for _, i := range v.own() {
		for _, re := range res {
			if re.MatchString(v.rows[i]) {
				last = i
				break
			}
		}
	}
	return last, last >= 0
}

func (v *view) busy() bool {
	if _, ok := v.anyOwn(v.r.busy); ok {
		return true
	}
	if len(v.r.turnEnd) == 0 || len(v.echo) == 0 {
		return false
	}
	end, _ := v.anyOwn(v.r.turnEnd)
	return v.echo[len(v.echo)-1].from > end
}

func (v *view) dialog() bool {
	for _, i := range v.own() {
		for _, r := range v.r.dialog {
			if r.re.MatchString(v.rows[i]) {
				return true
			}
		}
	}
	return false
}

func (v *view) ready() bool {
	return v.hasBox && !v.dialog() && !v.busy()
}

func (v *view) inputEmpty() bool {
	if !v.hasBox {
		return false
	}
	t := strings.TrimSpace(v.text)
	if t == "" || slices.Contains(v.r.placeholders, t) {
		return true
	}
	for i := v.box.to + 1; i < len(v.rows); i++ {
		for _, h := range v.r.emptyHints {
			if strings.Contains(v.rows[i], h) {
				return true
			}
		}
	}
	return false
}

// paragraphs returns the CLI's own output below the last user echo, as
// paragraphs: runs of non-empty rows joined with spaces, box borders and
// repeated blanks removed, the bottom one first.
func (v *view) paragraphs() []string {
	start := 0
	if n := len(v.echo); n > 0 {
		start = v.echo[n-1].to + 1
	}
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for i := start; i < len(v.rows); i++ {
		if v.typed(i) {
			flush()
			continue
		}
		t := unbox(v.rows[i])
		if t == "" {
			flush()
			continue
		}
		cur = append(cur, t)
	}
	flush()
	slices.Reverse(out)
	return out
}

// unbox trims a row and the box-drawing borders around it.
func unbox(row string) string {
	t := strings.TrimSpace(row)
	t = strings.TrimSpace(strings.TrimPrefix(t, "│"))
	t = strings.TrimSpace(strings.TrimSuffix(t, "│"))
	if ruleRow(t) {
		return ""
	}
	return strings.Join(strings.Fields(t), " ")
}

// ruleRow reports whether a row is only a horizontal line or box edge.
func ruleRow(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	for _, r := range t {
		if !(r >= 0x2500 && r <= 0x259F) {
			return false
		}
	}
	return true
}

// lineOf reports whether row is made only of rune c (at least 3 of them).
func lineOf(row string, c rune) bool {
	n := 0
	for _, r := range strings.TrimSpace(row) {
		if r != c {
			return false
		}
		n++
	}
	return n >= 3
}

// continuation collects the rows after i that belong to the same entry:
// non-empty and indented by at least two spaces. It returns the last index.
func continuation(rows []string, i, limit int) int {
	j := i
	for j+1 < limit && strings.HasPrefix(rows[j+1], "  ") && strings.TrimSpace(rows[j+1]) != "" {
		j++
	}
	return j
}

func res(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

// Composer finds the CLI's input box on a screen of rows: the first and
// last rows it covers, borders included; ok is false when none shows (or
// the CLI is a plain program). The protocol reader looks above it for a
// request's echo (protocol.ReaderOptions.Composer).
func (p *Profile) Composer(rows []string) (from, to int, ok bool) {
	if p.tui == nil {
		return 0, 0, false
	}
	box, _, ok := p.tui.composer(rows)
	return box.from, box.to, ok
}
