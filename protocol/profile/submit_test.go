//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestSubmitRefusesDraft: text half-typed by someone else stays alone.
func TestSubmitRefusesDraft(t *testing.T) {
	rec := loadRecording(t, "claude", "checkpoint-200x50")
	s := rec.screenAt(t, rec.Typed[1].Offset) // preamble typed, before Enter
	var w bytes.Buffer
	err := mustProfile(t, "claude").Submit(context.Background(), &w, func() Screen { return s }, "CHECKPOINT REQUEST: T1")
	if !errors.Is(err, ErrDraft) || w.Len() != 0 {
		t.Fatalf("Submit = %v, wrote %q; want ErrDraft and nothing typed", err, w.String())
	}
}

func TestSanitizeAndPayload(t *testing.T) {
	cases := map[string]string{
		"a\tb\nc":                      "a\tb\nc",
		"x\r\ny\rz":                    "x\ny\nz",
		"\x1b[201~evil\x1b[200~":       "[201~evil[200~",
		"bell\x07 del\x7f c1\u0085 ok": "bell del c1 ok",
		"ünïcödé ✓":                    "ünïcödé ✓",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
		if got := payload(Sanitize(in), true); strings.Count(got, pasteEnd) != 1 || !strings.HasSuffix(got, pasteEnd) {
			t.Errorf("payload(%q) closes the paste early: %q", in, got)
		}
	}
	if got := payload("a\nb\tc", false); got != "a b    c" {
		t.Errorf("unbracketed payload = %q", got)
	}
}

func TestCommandAndEnv(t *testing.T) {
	codex := mustProfile(t, "codex")
	cases := []struct {
		in, want []string
	}{
		{[]string{"codex"}, []string{"codex", "--no-alt-screen", "--no-daemon"}},
		{[]string{"/opt/bin/codex", "--no-daemon", "-m", "o5"}, []string{"/opt/bin/codex", "--no-alt-screen", "--no-daemon", "-m", "o5"}},
		{[]string{"npx", "codex", "--no-alt-screen", "--no-daemon"}, []string{"npx", "codex", "--no-alt-screen", "--no-daemon"}},
		{[]string{"sh", "-c", "exec codex"}, []string{"sh", "-c", "exec codex"}},
	}
	for _, c := range cases {
		if got := codex.Command(c.in); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("codex Command(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, name := range []string{"plain", "claude", "gemini"} {
		in := []string{name, "--dangerously-skip-permissions"}
		if got := mustProfile(t, name).Command(in); strings.Join(got, " ") != strings.Join(in, " ") {
			t.Errorf("%s Command changed argv: %q", name, got)
		}
	}
	env := mustProfile(t, "claude").Env([]string{"TERM=screen-256color", "HOME=/h"})
	if strings.Join(env, " ") != "TERM=screen-256color HOME=/h COLORTERM=truecolor" {
		t.Errorf("claude Env = %q", env)
	}
	if env := mustProfile(t, "plain").Env([]string{"A=1"}); len(env) != 1 {
		t.Errorf("plain Env = %q", env)
	}
}

func TestForAndQuit(t *testing.T) {
	if _, err := For("aider"); err == nil {
		t.Error("For(aider) succeeded")
	}
	want := map[string]string{"plain": `"\x04"`, "claude": `"/exit" "\r"`, "codex": `"\x03"`, "gemini": `"/quit" "\r" "\r"`, "opencode": `"\x03" "\x03"`, "qwen": `"/quit" "\r" "\r"`,
		"copilot": `"/exit" "\r"`}
	for _, name := range Names() {
		p := mustProfile(t, name)
		var keys []string
		for _, k := range p.Quit() {
			keys = append(keys, strconv.Quote(string(k.Bytes)))
		}
		if got := strings.Join(keys, " "); got != want[name] {
			t.Errorf("%s Quit = %s, want %s", name, got, want[name])
		}
		if p.Continue() != "continue" {
			t.Errorf("%s: Continue %q", name, p.Continue())
		}
	}
}

func TestModeTracker(t *testing.T) {
	var m ModeTracker
	steps := []struct {
		in   string
		want bool
	}{
		{"\x1b[?1004h", false},
		{"\x1b[?1004;20", false},
		{"04h", true}, // split across writes, several modes
		{"text \x1b[?2004l", false},
		{"\x1b[?2004h\x1b[?2004", true},
		{"1h", true},
		{"\x1b\x1b[?2004l", false},
	}
	for i, s := range steps {
		_, _ = m.Write([]byte(s.in))
		if m.Bracketed() != s.want {
			t.Fatalf("step %d (%q): bracketed %v, want %v", i, s.in, m.Bracketed(), s.want)
		}
	}
}
