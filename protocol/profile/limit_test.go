//go:build !e2e

package profile

import (
	"strings"
	"testing"
	"time"
)

// TestRecordedUsageLimit reads each CLI's usage-limit recording where the
// recorder saw it (right before it dismissed the banner or quit), with
// now = when the fake provider sent the 429 and the CLIs' time zone (UTC)
// as time.Local. The fake said "resets in 5 h"; only Codex prints the time
// ("try again at 8:02 AM", local wall time, minutes only). Claude (API key
// login) and Gemini show no reset time, so their wait is LimitRetry. None
// continues by itself; Codex's model-switch dialog is answered "2" (keep
// the model) and Gemini's limit dialog Enter on "Keep trying", after the
// reset only. Against a Chat Completions quota error naming its reset
// ("… will reset at 5:24 AM UTC."), Qwen Code shows "✕ Quota exhausted: …"
// with that time, and OpenCode waits the provider's retry-after on its
// status row ("[retrying in 4h 59m attempt #1]") and retries by itself;
// Copilot shows the provider's message after the status, "✗ 429 …", and
// ends the turn.
func TestRecordedUsageLimit(t *testing.T) {
	defer setLocal(time.UTC)()
	cases := []struct {
		cli, before string // typed text the banner was on screen before
		want        func(sent time.Time, p *Profile) time.Time
		text        string
		keep        *LimitKeep // the limit dialog's answer; nil: no dialog
		auto        bool       // the CLI sends the request again by itself
		// slack: the fake's clock named the reset a moment after the
		// recorder noted sent_at, maybe past a minute's turn.
		slack time.Duration
	}{
		{"claude", "/exit", func(sent time.Time, p *Profile) time.Time { return sent.Add(p.LimitRetry) },
			"API Error: Request rejected (429)", nil, false, 0},
		{"codex", "\x1b", func(sent time.Time, _ *Profile) time.Time {
			return sent.Add(5 * time.Hour).Truncate(time.Minute) // 03:02:07Z + 5 h, shown as 8:02 AM
		}, "You’ve hit your usage limit", &LimitKeep{Choice: "2. Keep current model", Keys: []Keys{{Bytes: []byte("2")}}}, false, 0},
		{"gemini", "2", func(sent time.Time, p *Profile) time.Time { return sent.Add(p.LimitRetry) },
			"Usage limit reached for gemini-3.8-flash.", &LimitKeep{Choice: "1. Keep trying", Keys: []Keys{{Bytes: []byte("\r")}}, AfterReset: true}, false, 0},
		{"qwen", "/quit", func(sent time.Time, _ *Profile) time.Time {
			return sent.Add(5 * time.Hour).Truncate(time.Minute) // "will reset at 5:24 AM UTC."
		}, "✕ Quota exhausted: You exceeded your current quota", nil, false, time.Minute},
		{"copilot", "/exit", func(sent time.Time, _ *Profile) time.Time {
			return sent.Add(5 * time.Hour).Truncate(time.Minute) // "will reset at 9:55 AM UTC."
		}, "✗ 429 You exceeded your current quota", nil, false, time.Minute},
		{"opencode", "\x03", func(sent time.Time, _ *Profile) time.Time {
			return sent.Add(4*time.Hour + 59*time.Minute) // "[retrying in 4h 59m attempt #1]", read at sent
		}, "You exceeded your current quota", nil, true, 0},
	}
	for _, c := range cases {
		t.Run(c.cli, func(t *testing.T) {
			p := mustProfile(t, c.cli)
			rec := loadRecording(t, c.cli, "usage-limit-200x50")
			sent, err := time.Parse(time.RFC3339, rec.UsageLimit.SentAt)
			if err != nil {
				t.Fatal(err)
			}
			if rec.UsageLimit.ResetInSeconds != 5*3600 {
				t.Fatalf("sidecar reset_in_seconds = %d, the test expects 5 h", rec.UsageLimit.ResetInSeconds)
			}
			s := rec.screenAt(t, rec.typedAt(t, c.before, 0))
			at, ok, text := p.UsageLimit(s, sent)
			if !ok || !strings.Contains(text, c.text) {
				t.Fatalf("UsageLimit = %v, %v, %q on\n%s", at, ok, text, s)
			}
			if want := c.want(sent, p); at.Before(want) || at.After(want.Add(c.slack)) {
				t.Errorf("reset at %v, want %v (banner %q)", at, want, text)
			}
			if l, ok := p.Limit(s, sent); !ok || l.Kind != LimitReached || l.AutoResume != c.auto || l.Text != text {
				t.Errorf("Limit = %+v, %v; want the same reached limit, a continue of its own %v", l, ok, c.auto)
			}
			switch d, ok := p.Dialog(s); {
			case c.keep == nil && ok:
				t.Errorf("a dialog %+v", d)
			case c.keep != nil && (!ok || d.Kind != DialogLimit || d.Keep == nil || d.Keep.Choice != c.keep.Choice ||
				d.Keep.AfterReset != c.keep.AfterReset || len(d.Keep.Keys) != 1 || string(d.Keep.Keys[0].Bytes) != string(c.keep.Keys[0].Bytes)):
				t.Errorf("Dialog = %+v %+v, %v; want a limit dialog kept with %+v", d, d.Keep, ok, *c.keep)
			}
			// Read twice, the same answer: the caller's stability check holds.
			if at2, ok2, _ := p.UsageLimit(s, sent); !ok2 || !at2.Equal(at) {
				t.Errorf("second read differs: %v %v", at2, ok2)
			}
			// And never on the screens before the limit.
			rp := rec.replay(t)
			limitAt := rec.typedAt(t, "CHECKPOINT REQUEST", 0)
			for off := 0; off <= limitAt; off += 512 {
				if l, ok := p.Limit(rp.to(off), sent); ok {
					t.Fatalf("offset %d: a usage limit before there was one: %+v", off, l)
				}
			}
		})
	}
}

// TestNoUsageLimitOnAnyNormalScreen: no screen of the normal recordings,
// at any moment, reads as a usage limit, a warning before one or a limit
// dialog.
func TestNoUsageLimitOnAnyNormalScreen(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for _, cli := range cliNames {
		for _, name := range []string{"checkpoint-200x50", "checkpoint-80x50", "repeat-200x50"} {
			t.Run(cli+"/"+name, func(t *testing.T) {
				t.Parallel() // a replay is CPU alone: two at once on two cores
				p := mustProfile(t, cli)
				rec := loadRecording(t, cli, name)
				rp := rec.replay(t)
				for off := 0; off < len(rec.raw)+1024; off += 1024 {
					s := rp.to(off)
					if l, ok := p.Limit(s, now); ok {
						t.Fatalf("offset %d: usage limit %+v", off, l)
					}
					if d, ok := p.Dialog(s); ok && d.Kind == DialogLimit {
						t.Fatalf("offset %d: a limit dialog %+v", off, d)
					}
				}
			})
		}
	}
}

// setLocal sets time.Local for one test and returns the undo.
func setLocal(loc *time.Location) func() {
	old := time.Local
	time.Local = loc
	return func() { time.Local = old }
}
