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
