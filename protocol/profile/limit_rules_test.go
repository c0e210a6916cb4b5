//go:build !e2e

package profile

import (
	"strings"
	"testing"
	"time"
)

// Hand-written screens (NOT recorded), laid out as the recordings lay out
// each CLI's screen: Claude's other auto-continue states and warnings,
// whose wording is from Claude Code 2.1.332's binary (no recording shows
// them), and dialogs made to look like both a limit and a permission
// dialog.

const claudeBanner = "  ⎿ \u00a0You've hit your 5-hour limit · resets 10:50pm (UTC)"

// claudeLimitScreen is Claude's screen after the refused prompt: the
// transcript rows, the row above the input box, the empty box and the
// footer rows.
func claudeLimitScreen(above string, transcript []string, footer ...string) staticScreen {
	rule := strings.Repeat("─", 120)
	rows := append([]string{"❯ CHECKPOINT REQUEST: T060"}, transcript...)
	rows = append(rows, "", "", above, rule, "❯\u00a0", rule)
	rows = append(rows, footer...)
	return staticScreen{rows: append(rows, "  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents"), bracketed: true}
}

func TestLimitHandWritten(t *testing.T) {
	defer setLocal(time.UTC)()
	now := time.Date(2026, 11, 25, 22, 50, 1, 0, time.UTC)
	reset := time.Date(2026, 11, 25, 22, 50, 0, 0, time.UTC)
	gauge := strings.Repeat(" ", 100) + "◐ medium · /effort"
	armed := "● Usage limit reached · set to continue automatically at 10:50pm"
	cases := []struct {
		name, cli string
		screen    staticScreen
		want      *Limit // nil: none
	}{
		{"claude: continue cancelled", "claude", claudeLimitScreen(gauge, []string{claudeBanner, "", armed, "",
			"● Automatic continue cancelled · /rate-limit-options to wait again"}),
			&Limit{Kind: LimitReached, Reset: reset}},
		{"claude: the banner alone, the turn over", "claude", claudeLimitScreen(gauge, []string{claudeBanner, "",
			"● Automatic continue was turned off · this task will not resume on its own"}),
			&Limit{Kind: LimitReached, Reset: reset}},
		{"claude: the banner wrapped at a narrow width", "claude", claudeLimitScreen(gauge, []string{
			"  ⎿ \u00a0You've hit your weekly limit · resets Nov 27,", "     3pm (America/Los_Angeles)", "",
			"● Usage limit reached · set to continue automatically at Nov 27, 3pm"}),
			&Limit{Kind: LimitReached, Reset: time.Date(2026, 11, 27, 15, 0, 0, 0, mustLoc(t, "America/Los_Angeles")), AutoResume: true}},
		{"claude: the banner alone while a turn runs", "claude", claudeLimitScreen("✻ Skedaddling…", []string{claudeBanner}), nil},
		{"claude: the banner's words answered by the model", "claude", claudeLimitScreen(gauge, []string{claudeBanner, "",
			"● READY.", "", "✻ Brewed for 0s · done 10:50 PM"}), nil},
		{"claude: reset, waiting for Enter", "claude", claudeLimitScreen(gauge, []string{claudeBanner, "", armed, "",
			"● Usage limit has reset · Press enter to continue"}), nil},
		{"claude: the footer alone (the banner scrolled away)", "claude", claudeLimitScreen(gauge, []string{"● Working on it."},
			"  ⚠ Usage limit reached · limit resets 3am", "    Continuing automatically at 3am · Esc to cancel"),
			&Limit{Kind: LimitReached, Reset: time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC), AutoResume: true}},
		{"claude: over 90% of the weekly limit", "claude", claudeLimitScreen(
			strings.Repeat(" ", 90)+"Over 90% of your weekly limit used · resets Nov 27, 3pm (UTC)", []string{"", "● READY."}),
			&Limit{Kind: LimitApproaching, Reset: time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)}},
		{"claude: wrapping up before the limit", "claude", claudeLimitScreen(gauge, []string{"", "● READY.", "",
			"● Approaching your 5-hour usage limit — Claude will wrap up the current step."}),
			&Limit{Kind: LimitApproaching}},
		{"codex: another day", "codex", codexScreen("■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), " +
			"visit https://chatgpt.com/settings/usage to purchase more credits or try again at Nov 26th, 2026 12:40 AM."),
			&Limit{Kind: LimitReached, Reset: time.Date(2026, 11, 26, 0, 40, 0, 0, time.UTC)}},
		{"codex: past the limit, answered", "codex", codexScreen("■ You’ve hit your usage limit. try again at 10:53 PM.",
			"", "• CHECKPOINT: T060"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, ok := mustProfile(t, c.cli).Limit(c.screen, now)
			switch {
			case c.want == nil && ok:
				t.Fatalf("Limit = %+v on\n%s", l, c.screen)
			case c.want == nil:
			case !ok || l.Kind != c.want.Kind || !l.Reset.Equal(c.want.Reset) || l.AutoResume != c.want.AutoResume || l.Text == "":
				t.Fatalf("Limit = %+v, %v; want %+v on\n%s", l, ok, *c.want, c.screen)
			}
		})
	}
}

// TestLimitDialogIsNeverAPermissionDialog: a dialog with a permission row
// is a permission dialog whatever else it shows (its Yes is never typed);
// a limit dialog missing its keep row, or with another row selected, is
// not answered.
func TestLimitDialogIsNeverAPermissionDialog(t *testing.T) {
	box := func(rows ...string) []string {
		out := []string{"╭" + strings.Repeat("─", 60) + "╮"}
		for _, r := range rows {
			out = append(out, "│ "+r+strings.Repeat(" ", 59-len([]rune(r)))+"│")
		}
		return append(out, "╰"+strings.Repeat("─", 60)+"╯")
	}
	cases := []struct {
		name, cli string
		rows      []string
		kind      string
		keys      bool
	}{
		{"codex: a command dialog dressed as the switch", "codex", []string{"› CHECKPOINT REQUEST: T060", "", "",
			"  Would you like to run the following command?", "  Approaching rate limits", "  Switch to gpt-6-luna for lower credit usage?",
			"", "› 1. Yes, proceed (y)", "  2. Keep current model", "", "  enter select · esc back"}, DialogPermission, false},
		{"codex: no keep row", "codex", []string{"  Approaching rate limits", "  Switch to gpt-6-luna for lower credit usage?", "",
			"› 1. Switch to gpt-6-luna", "  2. Keep current model (never show again)", "", "  enter select · esc back"}, DialogOther, false},
		{"codex: not under its title", "codex", []string{"  Pick a model", "", "› 1. Switch to gpt-6-luna", "  2. Keep current model",
			"", "  enter select · esc back"}, DialogOther, false},
		{"gemini: an approval box dressed as the limit", "gemini", box("Usage limit reached for gemini-3.8-flash.",
			"Allow execution of [Shell]?", "● 1. Keep trying", "  2. Stop"), DialogPermission, false},
		{"gemini: Stop selected", "gemini", box("Usage limit reached for gemini-3.8-flash.", "Access resets at 10:54 PM UTC.",
			"  1. Keep trying", "● 2. Stop"), DialogLimit, false},
		{"gemini: keep trying selected", "gemini", box("Usage limit reached for all Pro models.",
			"● 1. Keep trying", "  2. Stop"), DialogLimit, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := staticScreen{rows: c.rows}
			d, ok := mustProfile(t, c.cli).Dialog(s)
			if !ok || d.Kind != c.kind || (d.Kind == DialogLimit) != (d.Keep != nil) ||
				d.Keep != nil && (len(d.Keep.Keys) > 0) != c.keys {
				t.Fatalf("Dialog = %+v %+v, %v; want kind %s, keys %v on\n%s", d, d.Keep, ok, c.kind, c.keys, s)
			}
		})
	}
}

// TestClaudeLimitNotifications: Claude's Notification hook says when its
// own continue fired or will not fire; neither is a dialog.
func TestClaudeLimitNotifications(t *testing.T) {
	payload := func(typ, msg string) []byte {
		return []byte(`{"hook_event_name":"Notification","notification_type":"` + typ + `","message":"` + msg + `"}`)
	}
	f := ReadHook(KindClaudeNotification, payload("quota_auto_resume_fired", "Usage limit reset — Claude is continuing your task"))
	if !f.LimitResumed || f.NoAutoResume || f.Dialog != nil {
		t.Errorf("fired: %+v", f)
	}
	for _, typ := range []string{"quota_auto_resume_disabled", "quota_auto_resume_stale"} {
		if f := ReadHook(KindClaudeNotification, payload(typ, "the task will not resume on its own")); f.LimitResumed || !f.NoAutoResume || f.Dialog != nil {
			t.Errorf("%s: %+v", typ, f)
		}
	}
	if f := ReadHook(KindClaudeNotification, testdata(t, "claude-notification-agent-needs-input")); f.LimitResumed || f.NoAutoResume || f.Dialog == nil {
		t.Errorf("agent_needs_input: %+v", f)
	}
}
