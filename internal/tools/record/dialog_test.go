//go:build !e2e

package main

import (
	"strings"
	"testing"
)

// TestFirstDrawnWaitsForTheWholeWrite: a dialog written, then the rows
// below it erased in the same write (delivered in two reads 1 ms apart),
// is first drawn at the end of that write, not inside it; a read that
// completes it alone is found where it ends.
func TestFirstDrawnWaitsForTheWholeWrite(t *testing.T) {
	before := "\x1b[H\x1b[2JStart\r\n"
	dialog := "\x1b[3;1HDo you want to proceed?\r\n❯ No\r\n  Yes\r\nEsc to cancel"
	erase := "\x1b[7;1H\x1b[Kold\x1b[8;1H\x1b[K"
	later := "\x1b[10;1Hspinner"
	raw := before + dialog + erase + later
	a, b, c := len(before), len(before)+len(dialog), len(before)+len(dialog)+len(erase)
	rows := []string{"Do you want to proceed?", "❯ No", "Yes", "Esc to cancel"}

	marks := []mark{{Offset: a, AtMS: 10}, {Offset: a + 20, AtMS: 50}, {Offset: b, AtMS: 51}, {Offset: c, AtMS: 52},
		{Offset: len(raw), AtMS: 200}}
	off, screen, ok := firstDrawn([]byte(raw), marks, 0, len(raw), 40, 12, rows)
	if !ok || off != c || !strings.Contains(screen, "Esc to cancel") || strings.Contains(screen, "spinner") {
		t.Errorf("found at %d (want %d), ok %v, screen\n%s", off, c, ok, screen)
	}
	// The same bytes with the dialog's read on its own.
	marks[3].AtMS = 90
	if off, _, _ := firstDrawn([]byte(raw), marks, 0, len(raw), 40, 12, rows); off != b {
		t.Errorf("found at %d, want %d", off, b)
	}
	// Not before from, not after to.
	if _, _, ok := firstDrawn([]byte(raw), marks, 0, a+20, 40, 12, rows); ok {
		t.Error("found before the dialog was written")
	}
}

func TestInOrder(t *testing.T) {
	text := "Do you want to proceed?\n❯ 1. Yes\n  4. No\nEsc to cancel"
	if !inOrder(text, []string{"proceed?", "1. Yes", "4. No"}) || inOrder(text, []string{"4. No", "1. Yes"}) ||
		inOrder(text, []string{"proceed?", "5. Maybe"}) {
		t.Error("inOrder is wrong")
	}
}

// TestCheckDialog: a recording fails when a dialog was not found, held
// open under 3 s, followed by under 3 s, or when the command ran.
func TestCheckDialog(t *testing.T) {
	good := func() *recording {
		return &recording{
			Explainer: &dialogInfo{Rows: []string{"e"}, Screen: "e", AtMS: 1000, KeyAtMS: 4000},
			Dialog:    &dialogInfo{Rows: []string{"d"}, Screen: "d", AtMS: 5000, KeyAtMS: 9000, ScreenAfterAtMS: 12000},
			Probe:     &probeInfo{},
		}
	}
	if err := good().checkDialog(); err != nil {
		t.Fatalf("good recording: %v", err)
	}
	for name, spoil := range map[string]func(*recording){
		"explainer not found": func(r *recording) { r.Explainer.Screen = "" },
		"held briefly":        func(r *recording) { r.Dialog.KeyAtMS = 7999 },
		"short after":         func(r *recording) { r.Dialog.ScreenAfterAtMS = 11999 },
		"ran":                 func(r *recording) { r.Probe.Ran = true },
		"no dialog":           func(r *recording) { r.Dialog = nil },
	} {
		r := good()
		spoil(r)
		if err := r.checkDialog(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
