package profile

import (
	"fmt"
	"strings"
)

// ErrUnknownScreen (an ErrNotSubmitted too): after Enter the screen
// showed neither the CLI's input box nor a turn nor a dialog the
// profile knows — something drawn in place of the box, possibly a
// dialog in words no profile knows, which would take any further key
// as its (preselected) answer. Typing stopped; the caller watches the
// screen as a possible dialog (Unknown).
var ErrUnknownScreen = fmt.Errorf("%w: no input box on the screen after Enter", ErrNotSubmitted)

// unknownUnder is how many non-blank rows a CLI draws under its input box
// at most (its footer: model, folder, hints). A box with more under it is
// not the CLI's composer: a row of the transcript read as one (Codex's
// echo of a message, "› …", is drawn like its composer), the composer gone.
const unknownUnder = 6

// unknownRows bounds the text Unknown quotes: the rows at the bottom of the
// screen, where the box was.
const unknownRows = 8

// Unknown reports whether the screen shows something the profile does not
// know where its input box belongs: no box, no turn at work, no dialog of
// its rules, and something drawn (a blank screen is a CLI between frames).
// text is what is drawn there: the last non-blank rows, trimmed. After
// ErrUnknownScreen the session treats such a screen, while it lasts, as a
// possible dialog; no key is typed into it.
func (p *Profile) Unknown(s Screen) (text string, ok bool) {
	if p.tui == nil {
		return "", false
	}
	v := p.tui.view(s.Rows())
	if (v.hasBox && !v.boxBuried()) || v.busy() || v.dialog() {
		return "", false
	}
	var rows []string
	for i := len(v.rows) - 1; i >= 0 && len(rows) < unknownRows; i-- {
		r := strings.TrimSpace(v.rows[i])
		if r == "" {
			if len(rows) > 0 && i > 0 && strings.TrimSpace(v.rows[i-1]) == "" {
				break // a gap of two blank rows ends what is drawn in the box's place
			}
			continue
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return "", false
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return strings.Join(rows, "\n"), true
}

// boxBuried reports whether more than unknownUnder non-blank rows are drawn
// under the box: it is not the composer.
func (v *view) boxBuried() bool {
	under := 0
	for _, r := range v.rows[v.box.to+1:] {
		if strings.TrimSpace(r) != "" {
			under++
		}
	}
	return under > unknownUnder
}
