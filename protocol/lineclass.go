package protocol

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lineKind is what one line of agent output is, as far as blocks go.
type lineKind int

const (
	kindBlank lineKind = iota
	kindKey            // "Status: implementing"
	kindItem           // "- parsed config"
	kindText           // anything else
	kindFrame          // a row of box-drawing characters: a TUI frame edge
)

// field names one line of a block.
type field int

const (
	fieldNone field = iota
	fieldTask
	fieldStatus
	fieldCompleted
	fieldRemaining
	fieldFiles
	fieldProgress
	fieldBlockers
	fieldNotes
	fieldResume
	fieldPhase    // the seeds' optional lines (DESIGN §4)
	fieldStep     // Current Step:
	fieldSubtasks // a count "19/29" or a checklist
	fieldCreated  // Files Created:
	fieldErrors
	fieldExtra // any other Key: value line (extraKey); line.key holds the key
	numFields
)

var fieldNames = [numFields]string{"", "CHECKPOINT:", "Status:", "Completed:", "Remaining:",
	"Files Modified:", "Estimated Progress:", "Blockers:", "Notes:", "Resume:",
	"Phase:", "Current Step:", "Subtasks:", "Files Created:", "Errors:", "extra"}

func (f field) String() string { return fieldNames[f] }

// keyPrefixes maps the lower-cased key text to its field. CHECKPOINT: is
// matched separately, upper case only.
var keyPrefixes = []struct {
	prefix string
	f      field
}{
	{"status:", fieldStatus},
	{"completed:", fieldCompleted},
	{"remaining:", fieldRemaining},
	{"files modified:", fieldFiles},
	{"estimated progress:", fieldProgress},
	{"blockers:", fieldBlockers},
	{"notes:", fieldNotes},
	{"resume instructions:", fieldResume},
	{"resume:", fieldResume},
	{"phase:", fieldPhase},
	{"current step:", fieldStep},
	{"subtasks:", fieldSubtasks},
	{"files created:", fieldCreated},
	{"errors:", fieldErrors},
}

// line is one classified line.
type line struct {
	kind  lineKind
	field field  // kindKey
	key   string // fieldExtra: the key as written, without its colon
	value string // kindKey: the value after the key; kindItem: the item text
	text  string // the line without reply markers and surrounding spaces
}

// replyMarker reports whether r is a glyph the agent CLIs draw in front of a
// reply or a quoted line (Claude ⏺ ●, Codex •, Gemini ✦, Qwen ◆, frames │ ┃, echo > ❯ ›).
func replyMarker(r rune) bool {
	switch r {
	case '⏺', '●', '•', '✦', '│', '┃', '║', '▌', '▎', '>', '❯', '›', '⎿', '◆', '◇', '✻', '✳', '✶', '✽', '✢', '·', '∙', '*':
		return true
	}
	return false
}

// stripMarkers removes leading reply markers (each followed by a space or
// the end of the line) and spaces. bulletsToo=false keeps list bullets.
func stripMarkers(s string, bulletsToo bool) string {
	for range 4 {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || !replyMarker(r) {
			return s
		}
		if !bulletsToo && (r == '•' || r == '*' || r == '·') {
			return s
		}
		// Qwen Code draws its markers as text presentation: "◆︎ " is ◆
		// followed by VARIATION SELECTOR-15 (U+FE0E).
		rest := strings.TrimPrefix(strings.TrimPrefix(s[size:], "\ufe0e"), "\ufe0f")
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return s
		}
		s = rest
	}
	return strings.TrimLeftFunc(s, unicode.IsSpace)
}

// trimFrameRight drops a right-hand frame edge ("… │") and trailing spaces.
func trimFrameRight(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for _, edge := range []string{"│", "┃", "║"} {
		if t, ok := strings.CutSuffix(s, edge); ok {
			return strings.TrimRightFunc(t, unicode.IsSpace)
		}
	}
	return s
}

func isFrame(s string) bool {
	n := 0
	for _, r := range s {
		switch {
		case r >= 0x2500 && r <= 0x259F: // box drawing and block elements (Gemini draws ▄▄▄ ▀▀▀)
			n++
		case r == ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// classify reads one line of rendered text.
func classify(raw string) line {
	s := trimFrameRight(raw)
	s = strings.TrimSpace(s)
	if s == "" {
		return line{kind: kindBlank}
	}
	if isFrame(s) {
		return line{kind: kindFrame, text: s}
	}
	k := stripMarkers(s, true)
	if strings.HasPrefix(k, "**") {
		k = strings.Replace(strings.Replace(k, "**", "", 1), "**", "", 1)
	}
	if v, ok := strings.CutPrefix(k, "CHECKPOINT:"); ok {
		return line{kind: kindKey, field: fieldTask, value: strings.TrimSpace(v), text: k}
	}
	if len(k) >= 6 {
		lower := strings.ToLower(k[:min(len(k), 22)])
		for _, p := range keyPrefixes {
			if strings.HasPrefix(lower, p.prefix) {
				return line{kind: kindKey, field: p.f, value: strings.TrimSpace(k[len(p.prefix):]), text: k}
			}
		}
	}
	it := stripMarkers(s, false)
	if item, ok := listItem(it); ok {
		return line{kind: kindItem, value: item, text: it}
	}
	if key, v, ok := extraKey(k); ok {
		return line{kind: kindKey, field: fieldExtra, key: key, value: v, text: k}
	}
	return line{kind: kindText, text: k}
}

// listItem recognises "- x", "* x", "• x", "1. x", "1) x", and a checklist
// item without a bullet, "[x] x" or "[ ] x" (kept whole: the box is its
// state).
func listItem(s string) (string, bool) {
	if _, _, ok := checkbox(s); ok {
		return strings.TrimSpace(s), true
	}
	for _, b := range []string{"- ", "* ", "• ", "‣ ", "◦ ", "· ", "– "} {
		if rest, ok := strings.CutPrefix(s, b); ok {
			return strings.TrimSpace(rest), true
		}
	}
	i := 0
	for i < len(s) && i < 4 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return strings.TrimSpace(s[i+2:]), true
	}
	return "", false
}

// canonical is the line as the protocol means it: reply markers, bullet
// style, key case and spacing removed. Two renderings of one line agree.
func (l line) canonical() string {
	switch l.kind {
	case kindKey:
		if l.field == fieldExtra {
			return l.key + ": " + l.value
		}
		return l.field.String() + " " + l.value
	case kindItem:
		return "- " + l.value
	}
	return l.text
}

// canonicalWords is text in canonical form as one string of words.
func canonicalWords(lines []string, classified bool) string {
	var b strings.Builder
	for _, s := range lines {
		if !classified {
			s = classify(s).canonical()
		}
		for _, w := range strings.Fields(s) {
			b.WriteString(w)
			// A word a CLI broke after its hyphen (OpenCode wraps
			// "awaiting-verification" and "--check" there) joins the next
			// row's word as it was typed; a lone "-" is a bullet.
			if !hyphenBreak(w) {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// hyphenBreak reports whether a word ends with a hyphen that a CLI's word
// wrap may have broken a longer word after ("awaiting-", "--"); a lone "-"
// (a list bullet) does not.
func hyphenBreak(w string) bool {
	return len(w) > 1 && strings.HasSuffix(w, "-")
}
