//go:build !e2e

package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// An agent's block whose values hold NUL, escape sequences and C1 controls
// (U+009B CSI, U+009D OSC) gives a record without any: they never reach the
// checkpoint JSON, the events, STATUS.md or the handoff.
func TestRecordCarriesNoControlCharacters(t *testing.T) {
	evil := "a\x00b\x1b]0;title\x07c\u009b2Jd\u009d52;c;x\u009ce\x7f"
	text := "CHECKPOINT: T1\nStatus: blocked\nCompleted:\n- " + evil + "\nRemaining:\n- " + evil +
		"\nFiles Modified: " + evil + "\nEstimated Progress: 10%\nBlockers:\n- " + evil + "\nNotes: " + evil + "\nResume: " + evil + "\n"
	blocks, rejected := ParseBlocks(text)
	if len(blocks) != 1 {
		t.Fatalf("blocks %d, rejected %v", len(blocks), rejected)
	}
	cp := blocks[0].Record()
	b, _ := json.Marshal(cp)
	var round Checkpoint
	json.Unmarshal(b, &round)
	for _, s := range append(append(append(append([]string{round.Notes, round.ResumeInstructions}, round.Completed...),
		round.Remaining...), round.FilesModified...), round.Blockers...) {
		for _, r := range s {
			if IsControl(r) {
				t.Errorf("record field %q holds %U", s, r)
			}
		}
		if !strings.Contains(s, "a b") {
			t.Errorf("field %q: the text around the controls is lost", s)
		}
	}
	if Plain("plain ascii") != "plain ascii" || Plain("tab\there") != "tab here" || Plain("\xff") != "\uFFFD" {
		t.Error("Plain changes what it should not, or keeps invalid UTF-8")
	}
}

// The characters that make text read otherwise than it is (issue 22: U+202E
// stayed in records) never reach a record: Plain removes the bidirectional
// controls, the zero-width and other format characters, tag characters,
// variation selectors and Hangul fillers, turns line separators into
// spaces, and keeps every other letter, accent, script and emoji.
func TestPlainRemovesWhatReadsOtherwise(t *testing.T) {
	for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
		0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2064, 0xfeff, 0x00ad, 0x180e, 0xe0001, 0xe0041, 0xe007f,
		0xfe00, 0xfe0f, 0xe0100, 0xe01ef, 0x115f, 0x1160, 0x3164, 0xffa0} {
		if got := Plain("a" + string(r) + "b"); got != "ab" {
			t.Errorf("Plain keeps %U: %q", r, got)
		}
		if got := Visible("a\n" + string(r) + "b"); got != "a\nb" {
			t.Errorf("Visible keeps %U: %q", r, got)
		}
	}
	if got := Plain("invoice\u202efdp.exe"); got != "invoicefdp.exe" {
		t.Errorf("Plain(RLO) = %q", got)
	}
	if got := Plain("a\u2028b\u2029c"); got != "a b c" {
		t.Errorf("Plain(line separators) = %q", got)
	}
	for _, s := range []string{"café naïve", "日本語のテキスト", "שלום עולם", "مرحبا بالعالم", "✅ done 🚀", "Ω≈ç√ – “quoted” …", "x\u00a0y"} {
		if Plain(s) != s || Visible(s) != s {
			t.Errorf("Plain or Visible changed %q: %q, %q", s, Plain(s), Visible(s))
		}
	}
	// A block whose every line holds them gives a record without any.
	evil := "fix\u202e\u2066\u200b\ufeff\U000e0041\ufe0f txt.exe"
	blocks, rejected := ParseBlocks("CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- " + evil + "\nRemaining:\n- " + evil +
		"\nFiles Modified: " + evil + "\nEstimated Progress: 10%\nNotes: " + evil + "\nPhase: " + evil + "\nMood: " + evil + "\n")
	if len(blocks) != 1 {
		t.Fatalf("blocks %d, rejected %v", len(blocks), rejected)
	}
	b, _ := json.Marshal(blocks[0].Record())
	var round map[string]any
	if err := json.Unmarshal(b, &round); err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if strings.ContainsFunc(text, IsInvisible) || !strings.Contains(text, "fix txt.exe") {
		t.Errorf("the record holds invisible characters, or lost the words: %s", text)
	}
}

// PlainJSON writes what encoding/json leaves raw, and a terminal or editor
// acts on, as \u escapes that decode to the same text.
func TestPlainJSONEscapesWhatJSONLeavesRaw(t *testing.T) {
	in := map[string]string{"t": "a\u202eb\u009bc\x7fd\U000e0041e\u2028f\u200bg é 日本 ✅"}
	raw, _ := json.Marshal(in)
	out := PlainJSON(raw)
	if strings.ContainsFunc(string(out), func(r rune) bool { return IsInvisible(r) || IsControl(r) || r == 0x2028 }) {
		t.Fatalf("PlainJSON left some raw: %q", out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["t"] != in["t"] {
		t.Fatalf("PlainJSON changed the text: %q (%v)", back["t"], err)
	}
	if s := `{"a":"plain ascii"}`; string(PlainJSON([]byte(s))) != s {
		t.Error("PlainJSON changed plain ASCII")
	}
}

// What an agent said last (Tail: the WARNING line when it exits, the
// agent_failed event) and the lines `warden screen` shows of a plain agent
// (PlainLines) hold nothing invisible either.
func TestTailAndPlainLinesHoldNothingInvisible(t *testing.T) {
	said := "error in \u202etxt.exe\u2066\u200b\U000e0041 file"
	r := NewReader(testLogger(t), ReaderOptions{Mode: ModeLines})
	feed(r, crlf(said), 7)
	r.Flush()
	lines := append(r.Tail(5), PlainLines([]byte(said+"\r\n"))...)
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	for _, l := range lines {
		if strings.ContainsFunc(l, IsInvisible) || l != "error in txt.exe file" {
			t.Errorf("%q", l)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"one":                      "one",
		"one\ntwo":                 "one",
		"\n  one  \ntwo":           "one  ", // the blank around s, not the line's
		"  Do you want to go?\r\n": "Do you want to go?",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
