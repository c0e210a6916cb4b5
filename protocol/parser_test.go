//go:build !e2e

package protocol

import (
	"reflect"
	"strings"
	"testing"
)

const validBlock = `CHECKPOINT: T060
Status: implementing
Completed:
- wrote parser
- added tests
Remaining:
- wire reader
Files Modified: a.go, b.go
Estimated Progress: 65%`

var wantValid = Block{
	Task: "T060", Status: "implementing",
	Completed: []string{"wrote parser", "added tests"}, Remaining: []string{"wire reader"},
	FilesModified: []string{"a.go", "b.go"}, Progress: 65,
}

func TestParseValidVariants(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Block
	}{
		{"plain", validBlock, wantValid},
		{"claude gutter and lazy indent", "⏺ CHECKPOINT: T060\n  Status: implementing\n  Completed:\n  - wrote parser\n  - added tests\n    Remaining:\n  - wire reader\n    Files Modified: a.go, b.go\n    Estimated Progress: 65%", wantValid},
		{"claude 2.1.330 dot", "● CHECKPOINT: T060\n  Status: implementing\n  Completed:\n  - wrote parser\n  - added tests\n  Remaining:\n  - wire reader\n  Files Modified: a.go, b.go\n  Estimated Progress: 65%", wantValid},
		{"codex bullets and blank lines", "• CHECKPOINT: T060\n  Status: implementing\n  Completed:\n\n  • wrote parser\n  • added tests\n    Remaining:\n\n  • wire reader\n    Files Modified: a.go, b.go\n    Estimated Progress: 65%", wantValid},
		{"gemini", "✦ CHECKPOINT: T060\n  Status: implementing\n  Completed:\n   - wrote parser\n   - added tests\n  Remaining:\n   - wire reader\n  Files Modified: a.go, b.go\n  Estimated Progress: 65%", wantValid},
		{"framed", "│ CHECKPOINT: T060            │\n│ Status: implementing        │\n│ Completed:                  │\n│ * wrote parser              │\n│ 2. added tests              │\n│ Remaining:                  │\n│ 1) wire reader              │\n│ Files Modified: a.go, b.go  │\n│ Estimated Progress: 65 %    │", wantValid},
		{"hard wrapped item", strings.Replace(validBlock, "- wrote parser", "- wrote\n  parser", 1), wantValid},
		{"hard wrapped files", strings.Replace(validBlock, "a.go, b.go", "a.go,\n  b.go", 1), wantValid},
		{"files wrapped inside a path", strings.Replace(validBlock, "a.go, b.go", "a.go, docs/\n    trails/b.md", 1),
			func() Block { b := wantValid; b.FilesModified = []string{"a.go", "docs/trails/b.md"}; return b }()},
		{"files as list, lower-case keys", "CHECKPOINT: T1\nstatus: complete\ncompleted: none\nremaining: none\nfiles modified:\n- x.go\nestimated progress: 100%",
			Block{Task: "T1", Status: "complete", FilesModified: []string{"x.go"}, Progress: 100}},
		{"files none, optional lines", "CHECKPOINT: T2\nStatus: blocked\nCompleted:\nRemaining:\n- ask for key\nFiles Modified: none\nEstimated Progress: 0%\nBlockers:\n- no API key\nNotes: waited for the key\n  since noon\nResume: run make,\n  then retry\n\nSome prose after the block.",
			Block{Task: "T2", Status: "blocked", Remaining: []string{"ask for key"}, Blockers: []string{"no API key"},
				Notes: "waited for the key since noon", Resume: "run make, then retry"}},
		{"markdown bold keys", "**CHECKPOINT:** T3\n**Status:** testing\n**Completed:**\n- a\n**Remaining:**\n- b\n**Files Modified:** c.go\n**Estimated Progress:** 90%",
			Block{Task: "T3", Status: "testing", Completed: []string{"a"}, Remaining: []string{"b"}, FilesModified: []string{"c.go"}, Progress: 90}},
		{"prose around", "I am done with step one.\n\n" + validBlock + "\n\nNext I will wire the reader.", wantValid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks, reasons := ParseBlocks(tt.text)
			if len(reasons) != 0 || len(blocks) != 1 {
				t.Fatalf("got %d blocks, rejections %q", len(blocks), reasons)
			}
			if !reflect.DeepEqual(blocks[0], tt.want) {
				t.Fatalf("got %+v\nwant %+v", blocks[0], tt.want)
			}
			if blocks[0].Key() != tt.want.Key() {
				t.Fatal("key differs for equal content")
			}
		})
	}
}

func TestParseRejections(t *testing.T) {
	tests := []struct {
		name, text, reason string
	}{
		{"missing status", strings.Replace(validBlock, "Status: implementing\n", "", 1), "missing Status:"},
		{"missing progress", strings.Replace(validBlock, "\nEstimated Progress: 65%", "\n\nthat is all", 1), "missing Estimated Progress:"},
		{"missing files", strings.Replace(validBlock, "Files Modified: a.go, b.go\n", "", 1), "missing Files Modified:"},
		{"unknown status", strings.Replace(validBlock, "implementing", "coding", 1), "unknown status"},
		{"template status", strings.Replace(validBlock, "Status: implementing", "Status: implementing | testing | awaiting-verification | blocked | complete", 1), "unknown status"},
		{"placeholder status", strings.Replace(validBlock, "Status: implementing", "Status: <implementing | testing | ...>", 1), "placeholder in Status"},
		{"progress 250", strings.Replace(validBlock, "65%", "250%", 1), "out of range"},
		{"progress negative", strings.Replace(validBlock, "65%", "-5%", 1), "out of range"},
		{"progress without percent", strings.Replace(validBlock, "65%", "65", 1), "without %"},
		{"progress words", strings.Replace(validBlock, "65%", "about half%", 1), "not a whole number"},
		{"placeholder progress", strings.Replace(validBlock, "65%", "[N]%", 1), "placeholder in Estimated Progress"},
		{"placeholder task", strings.Replace(validBlock, "T060", "<task id>", 1), "placeholder or empty task id"},
		{"task with spaces", strings.Replace(validBlock, "T060", "T060 and T061", 1), "task id with spaces"},
		{"placeholder item", strings.Replace(validBlock, "- wire reader", "- <specific next step>", 1), "placeholder in Remaining:"},
		{"placeholder files", strings.Replace(validBlock, "a.go, b.go", "<comma-separated paths, or none>", 1), "placeholder in Files Modified:"},
		{"duplicate key", strings.Replace(validBlock, "Remaining:", "Status: testing\nRemaining:", 1), "duplicate Status: line"},
		{"cut by frame", "CHECKPOINT: T060\nStatus: implementing\nCompleted:\n- wrote\n╰──────────────────╯\nRemaining:", "block cut off by a frame line (missing Remaining:, Files Modified:, Estimated Progress:)"},
		{"cut by end", "CHECKPOINT: T060\nStatus: implementing\nCompleted:\n- wrote", "incomplete block (missing Remaining:, Files Modified:, Estimated Progress:)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks, reasons := ParseBlocks(tt.text)
			if len(blocks) != 0 || len(reasons) != 1 {
				t.Fatalf("got blocks %+v, rejections %q", blocks, reasons)
			}
			if !strings.Contains(reasons[0], tt.reason) {
				t.Fatalf("reason %q, want it to contain %q", reasons[0], tt.reason)
			}
		})
	}
}

func TestPreambleNeverParses(t *testing.T) {
	for _, task := range []Task{{ID: "T060", Title: "Convert PDFs", Lead: true}, {}} {
		p := Preamble(task)
		blocks, reasons := ParseBlocks(p)
		if len(blocks) != 0 {
			t.Fatalf("preamble yields a block: %+v", blocks)
		}
		if len(reasons) != 1 {
			t.Fatalf("want the template rejected once, got %q", reasons)
		}
		for _, l := range strings.Split(p, "\n") {
			if classify(l).text == CompleteMarker {
				t.Fatalf("preamble has %q alone on a line", CompleteMarker)
			}
		}
		for _, want := range []string{"CHECKPOINT REQUEST:", "[N]%", "Blockers:", "Notes:", "Resume:", "awaiting-verification",
			"Phase:", "Current Step:", "Subtasks:", "Files Created:", "Errors:", "\"Key: value\" line is kept"} {
			if !strings.Contains(p, want) {
				t.Errorf("preamble lacks %q", want)
			}
		}
	}
	req := Request("T060")
	if !strings.HasPrefix(req, "CHECKPOINT REQUEST: T060 (") || strings.Contains(req, "\n") {
		t.Fatalf("Request = %q", req)
	}
	if id, ok := RequestTask("  " + req); !ok || id != "T060" {
		t.Fatalf("RequestTask = %q %v", id, ok)
	}
	// The request and its reminder, wrapped at any width as a TUI would
	// (a hanging indent, or none), never parse as a block, nor a rejection.
	for width := 12; width <= 200; width++ {
		for _, indent := range []string{"", "  "} {
			var lines []string
			rest := req
			for len(rest) > width {
				cut := strings.LastIndex(rest[:width], " ")
				if cut <= len(indent) {
					cut = width
				}
				lines = append(lines, rest[:cut])
				rest = indent + strings.TrimSpace(rest[cut:])
			}
			text := strings.Join(append(lines, rest), "\n")
			if b, r := ParseBlocks(text); len(b)+len(r) != 0 {
				t.Fatalf("the request wrapped at %d parses: %v %v\n%s", width, b, r, text)
			}
		}
	}
}
