package profile

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/testrig/fakeagent"
)

// unknownRig is one CLI's recorded screens around a checkpoint request —
// ready (the empty box), held (the request in the box, before Enter) — and
// held with the box and everything under it replaced by a dialog in words
// no profile knows (fakeagent.UnknownDialogRows), as a CLI update may draw
// one right after Enter.
type unknownRig struct {
	text                   string
	ready, held, unknownAt staticScreen
}

func newUnknownRig(t *testing.T, p *Profile, cli string) unknownRig {
	t.Helper()
	rec := loadRecording(t, cli, "checkpoint-200x50")
	i := slices.IndexFunc(rec.Typed, func(ty struct {
		AtMS   int    `json:"at_ms"`
		Offset int    `json:"offset"`
		Text   string `json:"text"`
	}) bool {
		return strings.HasPrefix(ty.Text, "CHECKPOINT REQUEST")
	})
	if i < 0 || i+1 >= len(rec.Typed) {
		t.Fatalf("%s: no checkpoint request and its Enter in the recording", cli)
	}
	rp := rec.replay(t)
	r := unknownRig{text: rec.Typed[i].Text, ready: rp.to(rec.Typed[i].Offset), held: rp.to(rec.Typed[i+1].Offset)}
	hv := p.tui.view(r.held.rows)
	if !p.InputEmpty(r.ready) || !hv.hasBox || !p.holds(r.held, hv, r.text) {
		t.Fatalf("%s: the recorded screens: ready empty %v, held box %v holding the request %v", cli,
			p.InputEmpty(r.ready), hv.hasBox, p.holds(r.held, hv, r.text))
	}
	rows := slices.Clone(r.held.rows)
	for j := hv.box.from; j < len(rows); j++ {
		rows[j] = ""
	}
	copy(rows[hv.box.from:], fakeagent.UnknownDialogRows)
	r.unknownAt = staticScreen{rows: rows, bracketed: r.held.bracketed}
	return r
}

// screens is the CLI as warden's writes make it: ready until the text is
// typed, the text in the box until Enter, then the unknown dialog.
func (r unknownRig) screens(w *bytes.Buffer) func() Screen {
	return func() Screen {
		switch s := w.String(); {
		case strings.Contains(s, "\r"):
			return r.unknownAt
		case s != "":
			return r.held
		}
		return r.ready
	}
}
