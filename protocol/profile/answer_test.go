//go:build !e2e

package profile

import (
	"strings"
	"testing"
)

// Each real CLI's approval dialog, replayed: allow-once is Enter where the
// choice that allows this once is selected (every CLI preselects it but
// Claude Code in auto mode, where "No" is: one Down first, then ask
// again); deny is the CLI's deny key; OpenCode, whose selection is a
// colour, is refused with the reason; "always" is no answer at all.
func TestAnswerKeys(t *testing.T) {
	cases := []struct {
		cli, name string
		allow     string // the keys of allow-once; "" refused
		final     bool
	}{
		{"claude", "dialog-default-200x50", "\r", true},
		{"claude", "dialog-auto-200x50", "\x1b[B", false},
		{"codex", "dialog-200x50", "\r", true},
		{"gemini", "dialog-200x50", "\r", true},
		{"qwen", "dialog-200x50", "\r", true},
		{"opencode", "dialog-200x50", "", false},
		{"copilot", "dialog-200x50", "\r", true},
	}
	for _, c := range cases {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			rec := loadRecording(t, c.cli, c.name)
			p, _ := For(c.cli)
			s := rec.replay(t).to(sidecarDialogOffset(t, c.cli, c.name))
			keys, final, err := p.Answer(AnswerAllowOnce, s)
			if got := joinKeys(keys); got != c.allow || final != c.final || (c.allow == "") != (err != nil) {
				t.Errorf("allow-once: %q final %v err %v, want %q final %v", got, final, err, c.allow, c.final)
			}
			if c.allow == "" && (err == nil || !strings.Contains(err.Error(), "attach --rw")) {
				t.Errorf("refusal without its reason: %v", err)
			}
			keys, final, err = p.Answer(AnswerDeny, s)
			if joinKeys(keys) != "\x1b" || !final || err != nil {
				t.Errorf("deny: %q final %v err %v", joinKeys(keys), final, err)
			}
			if _, _, err := p.Answer("allow-always", s); err == nil {
				t.Error("allow-always answered")
			}
		})
	}
	p, _ := For("claude")
	if _, _, err := p.Answer(AnswerAllowOnce, rowsScreen{"❯ ", "? for shortcuts"}); err != ErrNoDialog {
		t.Errorf("no dialog on screen: %v", err)
	}
}

func joinKeys(keys []Keys) string {
	var b strings.Builder
	for _, k := range keys {
		b.Write(k.Bytes)
	}
	return b.String()
}

type rowsScreen []string

func (r rowsScreen) Rows() []string  { return r }
func (r rowsScreen) Bracketed() bool { return true }

// Qwen Code 0.24.4 sometimes draws its confirmation with a block at the
// end of each row (measured in TestRealCLIAnswer/qwen-default): its
// allow-once choice is the same choice.
func TestQwenAnswersThroughItsBlockEdge(t *testing.T) {
	p, _ := For("qwen")
	rows := rowsScreen{
		"? Shell curl -s http://127.0.0.1:9/second > second.txt (Fetch the second probe) ← █",
		"curl -s http://127.0.0.1:9/second > second.txt █",
		"Allow execution of: 'curl'? █",
		"› 1. Yes, allow once █",
		"2. Always allow run 'curl *' commands in this project █",
		"3. Always allow run 'curl *' commands for this user █",
		"4. No, suggest changes (esc) █",
		"⠏ Waiting for user confirmation...",
	}
	keys, final, err := p.Answer(AnswerAllowOnce, rows)
	if joinKeys(keys) != "\r" || !final || err != nil {
		t.Errorf("allow-once: %q final %v err %v, want Enter", joinKeys(keys), final, err)
	}
}
