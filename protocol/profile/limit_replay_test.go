//go:build !e2e

package profile

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// limitCase is one recording of a real CLI meeting its usage limit
// (../testdata/README.md, "Usage limits, as each vendor signals them") and
// what the profile must read on its screen once the banner or dialog is
// fully drawn (the sidecar's usage_limit.screen).
type limitCase struct {
	cli, name  string
	kind       string // Limit's kind
	reset      bool   // Limit's Reset is the window's reset_at, to the minute shown
	auto       bool   // Limit's AutoResume
	keys       string // "": no dialog; else a limit dialog answered with these keys
	choice     string // the row they pick
	afterReset bool
}

var limitCases = []limitCase{
	{cli: "claude", name: "limit-subscriber-200x50", kind: LimitReached, reset: true, auto: true},
	{cli: "codex", name: "near-limit-200x50", kind: LimitApproaching, keys: "2", choice: "2. Keep current model"},
	{cli: "codex", name: "limit-reset-200x50", kind: LimitReached, reset: true, keys: "2", choice: "2. Keep current model"},
	{cli: "gemini", name: "limit-reset-200x50", kind: LimitReached, reset: true, keys: "\r", choice: "1. Keep trying", afterReset: true},
}

// limitNow is when the recording's limit started (the refused request),
// or, without one, a time of the same evening.
func limitNow(t *testing.T, rec *recording) time.Time {
	t.Helper()
	if rec.UsageLimit == nil {
		t.Fatal("the sidecar has no usage_limit")
	}
	if rec.UsageLimit.SentAt == "" {
		return time.Date(2026, 11, 25, 22, 52, 0, 0, time.UTC)
	}
	return mustTime(t, rec.UsageLimit.SentAt)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// drawnAt is the first offset (in 64-byte steps, and at each write the
// recorder typed) where the visible screen is the sidecar's
// usage_limit.screen, and that screen.
func drawnAt(t *testing.T, rec *recording) (int, staticScreen) {
	t.Helper()
	want := trimRows(strings.Split(rec.UsageLimit.Screen, "\n"))
	var offs []int
	for off := 64; off < len(rec.raw)+64; off += 64 {
		offs = append(offs, off)
	}
	for _, ty := range rec.Typed {
		offs = append(offs, ty.Offset)
	}
	slices.Sort(offs)
	rp := rec.replay(t)
	for _, off := range offs {
		s := rp.to(off)
		if strings.Join(trimRows(s.rows), "\n") == strings.Join(want, "\n") {
			return off, s
		}
	}
	t.Fatalf("the sidecar's limit screen never shows in the replay:\n%s", rec.UsageLimit.Screen)
	return 0, staticScreen{}
}

// trimRows trims each row's trailing white space and the trailing empty
// rows.
func trimRows(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.TrimRight(r, " \u00a0")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// TestRecordedLimitScreens: on each CLI's limit screen as first fully
// drawn, the profile reads the limit (reached, or approaching on Codex's
// 95 % recording) with the window's reset as the CLI shows it (UTC, the
// CLIs' zone, to the minute), Claude's own continue at the reset, and the
// limit dialog with the key that keeps everything as it is — the key the
// recorder typed. The same answer on a second read.
func TestRecordedLimitScreens(t *testing.T) {
	for _, c := range limitCases {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			p := mustProfile(t, c.cli)
			rec := loadRecording(t, c.cli, c.name)
			now := limitNow(t, rec)
			_, s := drawnAt(t, rec)
			l, ok := p.Limit(s, now)
			if !ok || l.Kind != c.kind || l.AutoResume != c.auto || l.Text == "" {
				t.Fatalf("Limit = %+v, %v; want kind %s, auto %v on\n%s", l, ok, c.kind, c.auto, s)
			}
			var want time.Time
			if c.reset {
				want = mustTime(t, rec.UsageLimit.ResetAt).Truncate(time.Minute)
			}
			if !l.Reset.Equal(want) {
				t.Errorf("reset %v, want %v (%q)", l.Reset, want, l.Text)
			}
			if l2, _ := p.Limit(s, now); l2.Kind != l.Kind || !l2.Reset.Equal(l.Reset) || l2.AutoResume != l.AutoResume || l2.Text != l.Text {
				t.Errorf("a second read differs: %+v", l2)
			}
			if at, ok, text := p.UsageLimit(s, now); ok != (c.kind == LimitReached) || (ok && (!at.Equal(want) || text != l.Text)) {
				t.Errorf("UsageLimit = %v, %v, %q; want it to agree with Limit", at, ok, text)
			}
			d, ok := p.Dialog(s)
			if c.keys == "" {
				if ok {
					t.Errorf("a dialog %+v on Claude's limit screen", d)
				}
				return
			}
			checkLimitDialog(t, c, d, ok, s)
			if p.Ready(s) {
				t.Error("ready while the limit dialog waits: text typed now would answer it")
			}
			if k := rec.UsageLimit.Keep; k != "" && k != c.keys {
				t.Errorf("the recorder kept the model with %q, the profile with %q", k, c.keys)
			}
			if r := rec.UsageLimit.Resume; c.afterReset && r != c.keys {
				t.Errorf("the recorder resumed with %q, the profile with %q", r, c.keys)
			}
		})
	}
}

func checkLimitDialog(t *testing.T, c limitCase, d Dialog, ok bool, s staticScreen) {
	t.Helper()
	if !ok || d.Kind != DialogLimit || d.Keep == nil {
		t.Fatalf("Dialog = %+v, %v; want a limit dialog on\n%s", d, ok, s)
	}
	if len(d.Keep.Keys) != 1 || string(d.Keep.Keys[0].Bytes) != c.keys || d.Keep.Choice != c.choice || d.Keep.AfterReset != c.afterReset {
		t.Errorf("Keep = %+v; want %q (%s), after the reset only: %v", d.Keep, c.keys, c.choice, c.afterReset)
	}
	for _, w := range []string{"Usage limit reached for", "Approaching rate limits"} {
		if strings.Contains(s.String(), w) && !strings.Contains(d.Text, w) {
			t.Errorf("the dialog's text lacks its title %q:\n%s", w, d.Text)
		}
	}
}
