//go:build !e2e

package profile

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// limitMoments are where a limit recording's writes sit in its typed list.
type limitMoments struct {
	start  int // the Enter the limit (or, near it, the first answer) came after
	keep   int // the write that answered the model-switch dialog; -1: none
	resume int // what was typed after the reset; -1: Claude resumed by itself
	quit   int // the first write of the quit keys
}

func momentsOf(t *testing.T, rec *recording) limitMoments {
	t.Helper()
	m := limitMoments{start: -1, keep: -1, resume: -1, quit: -1}
	prev := ""
	for i, ty := range rec.Typed {
		switch {
		case m.start < 0 && ty.Text == "\r" && (strings.HasPrefix(prev, "CHECKPOINT REQUEST") ||
			rec.UsageLimit.SentAt == "" && strings.HasPrefix(prev, "You are supervised")):
			m.start = i
		case m.start < 0 || m.quit >= 0:
		case m.keep < 0 && ty.Text == rec.UsageLimit.Keep:
			m.keep = i
		case m.resume < 0 && ty.Text == rec.UsageLimit.Resume:
			m.resume = i
		case ty.Text == "/exit" || ty.Text == "/quit" || ty.Text == "\x03":
			m.quit = i
		}
		prev = ty.Text
	}
	if m.start < 0 || m.quit < 0 || (rec.UsageLimit.Keep != "") != (m.keep >= 0) ||
		(rec.UsageLimit.Resume != "auto" && rec.UsageLimit.SentAt != "") != (m.resume >= 0) {
		t.Fatalf("moments %+v do not fit the sidecar's writes %+v", m, rec.Typed)
	}
	return m
}

// TestRecordedLimitMoments: what the profile reads where the recorder
// typed. Until the refused request (Codex's 95 %: the first answer)
// nothing; where the recorder kept the model, the limit dialog with that
// key; where it typed after the reset, Codex still at its limit and
// ready for `continue`, Gemini's dialog with Enter after the reset; where
// it quit, after the block was answered, nothing at all.
func TestRecordedLimitMoments(t *testing.T) {
	for _, c := range limitCases {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			p := mustProfile(t, c.cli)
			rec := loadRecording(t, c.cli, c.name)
			now, m := limitNow(t, rec), momentsOf(t, rec)
			rp := rec.replay(t)
			for i, ty := range rec.Typed {
				s := rp.to(ty.Offset)
				l, lok := p.Limit(s, now)
				d, dok := p.Dialog(s)
				switch {
				case i <= m.start:
					if lok || dok {
						t.Fatalf("write %d %q: limit %+v %v, dialog %+v %v before the limit on\n%s", i, ty.Text, l, lok, d, dok, s)
					}
				case i == m.keep:
					checkLimitDialog(t, c, d, dok, s)
				case i == m.resume && c.afterReset:
					checkLimitDialog(t, c, d, dok, s)
					if !lok || l.Kind != LimitReached || !l.Reset.Before(mustTime(t, rec.UsageLimit.ResumedAt)) {
						t.Errorf("at the resume: %+v %v, want the limit whose reset has passed", l, lok)
					}
				case i == m.resume:
					if !lok || l.Kind != LimitReached || l.AutoResume || dok || !p.Ready(s) || !p.InputEmpty(s) {
						t.Errorf("before `continue`: limit %+v %v, dialog %v, ready %v, empty %v on\n%s", l, lok, dok, p.Ready(s), p.InputEmpty(s), s)
					}
				case i == m.quit:
					if lok || dok || !p.TurnEnded(s) || !strings.Contains(s.String(), "Estimated Progress: 65%") {
						t.Errorf("at the quit, the block answered: limit %+v %v, dialog %+v %v, ended %v on\n%s", l, lok, d, dok, p.TurnEnded(s), s)
					}
				}
			}
		})
	}
}

// TestRecordedLimitThroughout replays each limit recording in 64-byte
// steps: a dialog is never read as a permission one and a limit dialog
// always has the keep key; no limit is reached before the refused request
// (ever, at 95 %); Claude's limit reads reached, with its own continue and
// the same reset, from its first read until "Usage limit reset ·
// Continuing automatically", and never after; once Codex's and Gemini's
// resumed turn runs, the limit is never read again.
func TestRecordedLimitThroughout(t *testing.T) {
	for _, c := range limitCases {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			t.Parallel() // a replay is CPU alone: two at once on two cores
			p := mustProfile(t, c.cli)
			rec := loadRecording(t, c.cli, c.name)
			now, m := limitNow(t, rec), momentsOf(t, rec)
			start, quit := rec.Typed[m.start].Offset, rec.Typed[m.quit].Offset
			over := len(rec.raw) // Claude's own continue, or the resumed turn running
			if c.auto {
				const fired = "Usage limit reset · Continuing automatically"
				over = strings.Index(string(rec.raw), fired) + len(fired)
			}
			enter := len(rec.raw) // the Enter of what was typed after the reset
			if m.resume >= 0 {
				enter = rec.Typed[m.resume].Offset
				if rec.Typed[m.resume].Text != "\r" {
					enter = rec.Typed[m.resume+1].Offset
				}
			}
			var first, resumed int
			var firstReset time.Time
			rp := rec.replay(t)
			for off := 64; off < quit; off += 64 {
				s := rp.to(off)
				l, lok := p.Limit(s, now)
				reached := lok && l.Kind == LimitReached
				if d, ok := p.Dialog(s); ok && (d.Kind == DialogPermission ||
					d.Kind == DialogLimit && (len(d.Keep.Keys) != 1 || string(d.Keep.Keys[0].Bytes) != c.keys)) {
					t.Fatalf("offset %d: dialog %+v %+v on\n%s", off, d, d.Keep, s)
				}
				if off > enter && resumed == 0 && p.Busy(s) {
					resumed, over = off, off
				}
				switch {
				case reached && (off <= start || c.kind == LimitApproaching || off >= over):
					t.Fatalf("offset %d: reached %+v (the request refused at %d, the limit over at %d) on\n%s", off, l, start, over, s)
				case reached && first == 0:
					first, firstReset = off, l.Reset
				case c.auto && first > 0 && off < over && (!reached || !l.AutoResume || !l.Reset.Equal(firstReset)):
					t.Fatalf("offset %d, between the limit (%d) and Claude's own continue (%d): %+v %v on\n%s", off, first, over, l, lok, s)
				}
			}
			if c.kind == LimitReached && first == 0 {
				t.Error("the limit was never read")
			}
			if m.resume >= 0 && resumed == 0 {
				t.Error("the resumed turn was never seen running")
			}
		})
	}
}

// TestNoLimitOnDialogRecordings: the approval dialogs and the screens
// around them are never a usage limit, a warning before one or a limit
// dialog.
func TestNoLimitOnDialogRecordings(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct{ cli, name string }{{"claude", "dialog-default-200x50"}, {"claude", "dialog-auto-200x50"},
		{"codex", "dialog-200x50"}, {"gemini", "dialog-200x50"}} {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			p := mustProfile(t, c.cli)
			rec := loadRecording(t, c.cli, c.name)
			rp := rec.replay(t)
			offs := []int{sidecarDialogOffset(t, c.cli, c.name)}
			for off := 256; off < len(rec.raw)+256; off += 256 {
				offs = append(offs, off)
			}
			slices.Sort(offs)
			for _, off := range offs {
				s := rp.to(off)
				if l, ok := p.Limit(s, now); ok {
					t.Fatalf("offset %d: limit %+v on\n%s", off, l, s)
				}
				if d, ok := p.Dialog(s); ok && d.Kind == DialogLimit {
					t.Fatalf("offset %d: the approval dialog read as a limit dialog %+v", off, d)
				}
			}
		})
	}
}
