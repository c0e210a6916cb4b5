package profile

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The choices a person answers a permission dialog with (warden answer,
// the page). There is no "always": warden never picks a choice that allows
// more than the one action.
const (
	AnswerAllowOnce = "allow-once"
	AnswerDeny      = "deny"
)

// Keys a selection is moved and taken with.
var (
	keyUp    = []byte("\x1b[A")
	keyDown  = []byte("\x1b[B")
	keyEnter = []byte("\r")
)

// arrowPause spaces the arrow keys (a TUI redraws between them).
const arrowPause = 30 * time.Millisecond

// optionRow is one choice of a dialog, its selection mark apart.
var optionRow = regexp.MustCompile(`^([›❯●▸]\s*)?(\d+\.\s.*|Yes|No)$`)

// ErrNoDialog: the screen shows no dialog to answer.
var ErrNoDialog = errors.New("no dialog on the agent's screen")

// Answer returns the keys that answer the dialog on screen s with choice.
// deny: the CLI's deny keys (Deny), final. allow-once, for a permission
// dialog only: Enter once the choice the CLI's rules name as allowing this
// one action is selected (final); until then the arrow keys that move the
// selection toward it (not final: type them, read the screen again, and
// ask again). A dialog whose choices warden cannot read, a CLI whose
// allow-once choice it does not know, and anything but those two choices
// are refused with the reason.
func (p *Profile) Answer(choice string, s Screen) (keys []Keys, final bool, err error) {
	if choice != AnswerAllowOnce && choice != AnswerDeny {
		return nil, false, fmt.Errorf("unknown answer %q: allow-once or deny (warden never answers \"allow always\")", choice)
	}
	if p.tui == nil {
		return nil, false, fmt.Errorf("a %s program draws no dialog warden can read", p.Name)
	}
	d, ok := p.Dialog(s)
	switch {
	case !ok:
		return nil, false, ErrNoDialog
	case d.Kind == DialogLimit:
		return nil, false, errors.New("this is the CLI's own usage-limit dialog, which warden answers itself")
	case d.PersonOnly:
		return nil, false, errors.New("warden never answers this dialog, not even with a deny (each choice, Esc too, is the user's decision): answer it with warden attach --rw")
	case choice == AnswerDeny:
		return p.Deny(), true, nil
	case d.Kind != DialogPermission:
		return nil, false, fmt.Errorf("allow-once answers a permission dialog; this one is a %s dialog: answer it with warden attach --rw", d.Kind)
	case p.tui.allowOnce == nil:
		return nil, false, errors.New(cmp.Or(p.tui.noAnswer, "warden does not know "+p.Name+"'s allow-once choice: answer it with warden attach --rw"))
	}
	sel, target := -1, -1
	n := 0
	for _, row := range strings.Split(d.Text, "\n") {
		m := optionRow.FindStringSubmatch(bareRow(row))
		if m == nil {
			continue
		}
		if m[1] != "" {
			sel = n
		}
		if target < 0 && p.tui.allowOnce.MatchString(m[2]) {
			target = n
		}
		n++
	}
	switch {
	case target < 0:
		return nil, false, errors.New("the dialog lists no choice that allows this once: answer it with warden attach --rw")
	case sel < 0:
		return nil, false, errors.New("warden cannot tell which of the dialog's choices is selected: answer it with warden attach --rw")
	case sel == target:
		return []Keys{{Bytes: keyEnter}}, true, nil
	}
	key, moves := keyDown, target-sel
	if moves < 0 {
		key, moves = keyUp, -moves
	}
	for range moves {
		keys = append(keys, Keys{Bytes: key, Pause: arrowPause})
	}
	return keys, false, nil
}
