//go:build !e2e

package profile

import (
	"strings"
	"testing"
	"time"
)

// Hand-written fixtures (NOT recorded): wording the recordings lack,
// drawn the way each CLI lays out its transcript in the recordings.

func claudeScreen(transcript ...string) staticScreen {
	rule := strings.Repeat("─", 120)
	rows := append([]string{"❯ CHECKPOINT REQUEST: T060", ""}, transcript...)
	rows = append(rows, "", "✻ Brewed for 0s", "", rule, "❯ ", rule, "  ? for shortcuts · ← for agents")
	return staticScreen{rows: rows, bracketed: true}
}

func codexScreen(transcript ...string) staticScreen {
	rows := append([]string{"› CHECKPOINT REQUEST: T060", "", ""}, transcript...)
	rows = append(rows, "", "", "› Ask Codex to do anything", "", "  fake-model default · ~/project",
		"  ← for agents · ? for shortcuts")
	return staticScreen{rows: rows, bracketed: true}
}

func geminiScreen(box ...string) staticScreen {
	rows := []string{strings.Repeat("▄", 120), " > CHECKPOINT REQUEST: T060", strings.Repeat("▀", 120), "",
		"╭" + strings.Repeat("─", 118) + "╮", "│" + strings.Repeat(" ", 118) + "│"}
	for _, b := range box {
		rows = append(rows, "│ "+b+strings.Repeat(" ", 117-len([]rune(b)))+"│")
	}
	rows = append(rows, "│"+strings.Repeat(" ", 118)+"│", "│ ● 1. Keep trying", "│   2. Stop", "╰"+strings.Repeat("─", 118)+"╯")
	return staticScreen{rows: rows, bracketed: true}
}

func TestUsageLimitHandWritten(t *testing.T) {
	berlin, ny, la := mustLoc(t, "Europe/Berlin"), mustLoc(t, "America/New_York"), mustLoc(t, "America/Los_Angeles")
	defer setLocal(berlin)()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) // 11:00 in Berlin
	cases := []struct {
		name, cli string
		screen    staticScreen
		want      time.Time // zero: LimitRetry after now
	}{
		{"claude subscription banner", "claude", claudeScreen(
			"  ⎿  You've hit your limit · resets 3pm (America/New_York)", "     /upgrade to increase your usage limit."),
			time.Date(2026, 11, 22, 15, 0, 0, 0, ny)},
		{"claude session limit with minutes", "claude", claudeScreen(
			"  ⎿  You’ve hit your session limit · resets 3:30pm (Europe/Berlin)"),
			time.Date(2026, 11, 22, 15, 30, 0, 0, berlin)},
		{"claude weekly limit with a date", "claude", claudeScreen(
			"  ⎿  You've hit your weekly limit · resets Nov 24, 3pm (America/Los_Angeles)"),
			time.Date(2026, 11, 24, 15, 0, 0, 0, la)},
		{"claude 5-hour limit, local, tomorrow", "claude", claudeScreen(
			"● 5-hour limit reached ∙ resets 1am"),
			time.Date(2026, 11, 23, 1, 0, 0, 0, berlin)},
		{"claude extra usage", "claude", claudeScreen(
			"  ⎿  You're out of extra usage · resets 9pm"),
			time.Date(2026, 11, 22, 21, 0, 0, 0, berlin)},
		{"claude old wording", "claude", claudeScreen(
			"  ⎿  Claude usage limit reached. Your limit will reset at 3pm (America/New_York)."),
			time.Date(2026, 11, 22, 15, 0, 0, 0, ny)},
		{"codex another day", "codex", codexScreen(
			"■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at Nov 23rd, 2026 8:02 AM."),
			time.Date(2026, 11, 23, 8, 2, 0, 0, berlin)},
		{"codex wrapped at 80 columns", "codex", codexScreen(
			"■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro),",
			"  visit https://chatgpt.com/settings/usage to purchase more credits or try again",
			"  at 4:15 PM."),
			time.Date(2026, 11, 22, 16, 15, 0, 0, berlin)},
		{"codex relative", "codex", codexScreen(
			"■ You’ve hit your usage limit. Try again in 2h 13m."),
			now.Add(2*time.Hour + 13*time.Minute)},
		{"codex no time", "codex", codexScreen(
			"■ You’ve hit your usage limit. Upgrade to Pro or try again later."),
			time.Time{}},
		{"gemini quota with reset", "gemini", geminiScreen(
			"Usage limit reached for gemini-2.5-pro.", "Access resets at 8:03 PM UTC.", "/stats model for usage details"),
			time.Date(2026, 11, 22, 20, 3, 0, 0, time.UTC)},
		{"gemini narrow no-break space and offset zone", "gemini", geminiScreen(
			"Usage limit reached for all Pro models.", "Access resets at 4:03\u202fPM GMT+1.", "/model to switch models."),
			time.Date(2026, 11, 22, 16, 3, 0, 0, time.FixedZone("", 3600))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustProfile(t, c.cli)
			want := c.want
			if want.IsZero() {
				want = now.Add(p.LimitRetry)
			}
			at, ok, text := p.UsageLimit(c.screen, now)
			if !ok || !at.Equal(want) {
				t.Fatalf("UsageLimit = %v, %v, %q; want %v on\n%s", at, ok, text, want, c.screen)
			}
		})
	}
}

// TestUsageLimitNeverFromTypedText: the words of a banner in the user's
// own prompt, its echo, or the input box are not a usage limit, a warning
// before one or a limit dialog.
func TestUsageLimitNeverFromTypedText(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rule := strings.Repeat("─", 120)
	screens := map[string]staticScreen{
		"claude": {rows: []string{
			"❯ If you see \"You've hit your limit · resets 3pm\" or a usage limit, wait.",
			"  Also: 5-hour limit reached ∙ resets 1am.",
			"  ● Usage limit reached · set to continue automatically at 10:50pm",
			"  ⚠ Usage limit reached · limit resets 10:50pm",
			"                You've used 95% of your 5-hour limit · resets 10:16pm (UTC)",
			claudeBanner, "", "● OK.", "", "✻ Cooked for 0s", "",
			rule, "❯ You've hit your usage limit · resets 3pm", rule, "  ● high · /effort"}},
		"codex": {rows: []string{
			"› When Codex says You’ve hit your usage limit … try again at 8:02 AM, stop.",
			"  ⚠ Heads up, you have less than 5% of your 5h limit left. Run /status for a breakdown.",
			"  Approaching rate limits", "  Switch to gpt-6-luna for lower credit usage?", "  › 1. Switch to gpt-6-luna",
			"    2. Keep current model", "  enter select · esc back", "", "",
			"• OK.", "", "  Worked for <1s • 03:01", "", "",
			"› You’ve hit your usage limit. try again at 8:02 AM", "", "  fake-model default · ~/project"}},
		"gemini": {rows: []string{
			strings.Repeat("▄", 120), " > Usage limit reached for gemini-2.5-pro. Access resets at 8:03 PM UTC.",
			strings.Repeat("▀", 120), "✦ OK.", "", strings.Repeat("─", 120),
			strings.Repeat("▄", 120), " > Usage limit reached for gemini-2.5-pro.", strings.Repeat("▀", 120),
			" workspace (/directory)   sandbox"}},
	}
	for cli, s := range screens {
		t.Run(cli, func(t *testing.T) {
			p := mustProfile(t, cli)
			if at, ok, text := p.UsageLimit(s, now); ok {
				t.Fatalf("usage limit %v %q read from typed text on\n%s", at, text, s)
			}
			if l, ok := p.Limit(s, now); ok {
				t.Fatalf("limit %+v read from typed text on\n%s", l, s)
			}
			if d, ok := p.Dialog(s); ok {
				t.Fatalf("dialog %+v read from typed text on\n%s", d, s)
			}
			if !p.Ready(s) || p.InputEmpty(s) {
				t.Errorf("ready=%v empty=%v: the box holds a draft", p.Ready(s), p.InputEmpty(s))
			}
		})
	}
}

func TestParseWhen(t *testing.T) {
	defer setLocal(time.UTC)()
	now := time.Date(2026, 12, 30, 23, 10, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"12am", time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), true},
		{"12:05 PM", time.Date(2026, 12, 31, 12, 5, 0, 0, time.UTC), true},
		{"11:00 PM", time.Date(2026, 12, 30, 23, 0, 0, 0, time.UTC), true}, // just passed: kept, not tomorrow
		{"Jan 2, 3pm", time.Date(2027, 1, 2, 15, 0, 0, 0, time.UTC), true}, // next year
		{"15:00 (Europe/Berlin)", time.Date(2026, 12, 31, 14, 0, 0, 0, time.UTC), true},
		{"9am PST", time.Date(2026, 12, 31, 17, 0, 0, 0, time.UTC), true},
		{"45 minutes", now.Add(45 * time.Minute), true},
		{"1 hour and 5 minutes", now.Add(65 * time.Minute), true},
		{"30s", now.Add(30 * time.Second), true},
		{"later.", time.Time{}, false},
		{"5 times", time.Time{}, false},
		{"42", time.Time{}, false},
	}
	for _, c := range cases {
		got, ok := parseWhen(c.in, now)
		if ok != c.ok || (ok && !got.Equal(c.want)) {
			t.Errorf("parseWhen(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("time zone %s: %v (install tzdata)", name, err)
	}
	return loc
}
