//go:build !e2e

package protocol

import (
	"reflect"
	"strings"
	"testing"
)

// The forms each seed line may take.

func TestSubtasksForms(t *testing.T) {
	for _, tc := range []struct {
		line  string
		want  *Subtasks
		extra string // Extra["Subtasks"]: a value that is no count
	}{
		{"Subtasks: 19/29", &Subtasks{Done: 19, Total: 29}, ""},
		{"Subtasks: 19 of 29", &Subtasks{Done: 19, Total: 29}, ""},
		{"Subtasks: 3 / 8 done", &Subtasks{Done: 3, Total: 8}, ""},
		{"Subtasks: 0/0", &Subtasks{}, ""},
		{"Subtasks: none", nil, ""},
		{"Subtasks: [x] parse", &Subtasks{Done: 1, Total: 1, Items: []Subtask{{"parse", true}}}, ""},
		{"Subtasks: 2/3\n- [x] a\n- [x] b\n- [ ] c", &Subtasks{Done: 2, Total: 3, Items: []Subtask{{"a", true}, {"b", true}, {"c", false}}}, ""},
		{"Subtasks:\n\n- [✓] a\n- b", &Subtasks{Done: 1, Total: 2, Items: []Subtask{{"a", true}, {"b", false}}}, ""},
		{"Subtasks: 30/29", nil, ""}, // numbers that are no count: dropped
		{"Subtasks: 19", nil, ""},    // (a TUI's half-drawn "19/29")
		{"Subtasks:\n- [x] a\n- [x", &Subtasks{Done: 1, Total: 1, Items: []Subtask{{"a", true}}}, ""},
		{"Subtasks: most of\n  them", nil, "most of them"},
		{"Subtasks: parser/reader", nil, "parser/reader"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			b := parseOne(t, validBlock+"\n"+tc.line)
			if !reflect.DeepEqual(b.Subtasks, tc.want) || b.Extra["Subtasks"] != tc.extra {
				t.Fatalf("subtasks %+v extra %q", b.Subtasks, b.Extra)
			}
		})
	}
}

func TestErrorsAndFilesCreatedForms(t *testing.T) {
	for _, tc := range []struct {
		text    string
		errs    []ErrorItem
		created []string
	}{
		{"Errors: main.go:7: x declared and not used", []ErrorItem{{Where: "main.go:7", Message: "x declared and not used"}}, nil},
		{"Errors: none", nil, nil},
		{"Errors:\n- TestX: fails\n- e.g.: note\n- Makefile:3: missing\n  separator\n- README.md: stale",
			[]ErrorItem{{Message: "TestX: fails"}, {Message: "e.g.: note"}, {Where: "Makefile:3", Message: "missing separator"},
				{Where: "README.md", Message: "stale"}}, nil},
		{"Errors:\n- https://ci/x: 500", []ErrorItem{{Message: "https://ci/x: 500"}}, nil},
		{"Files Created: none", nil, nil},
		{"Files Created:\n- a.go\n- docs/b.md", nil, []string{"a.go", "docs/b.md"}},
		{"Files Created: a.go,\n  b.go", nil, []string{"a.go", "b.go"}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			b := parseOne(t, validBlock+"\n"+tc.text)
			if !reflect.DeepEqual(b.Errors, tc.errs) || !reflect.DeepEqual(b.FilesCreated, tc.created) {
				t.Fatalf("errors %+v, created %q", b.Errors, b.FilesCreated)
			}
		})
	}
}

// A repeated optional line keeps the first, with its items and wraps; the
// block is not rejected for it. A repeated required line still rejects it.
func TestRepeatedOptionalLineKeepsTheFirst(t *testing.T) {
	text := validBlock + "\nNotes: first\n  wrapped\nPhase: a\nBlockers:\n- x\nNotes: second\n  wrapped too\nBlockers:\n- y\nPhase: b\nConfidence: high"
	want := wantValid
	want.Notes, want.Phase, want.Blockers = "first wrapped", "a", []string{"x"}
	want.Extra = map[string]string{"Confidence": "high"}
	if b := parseOne(t, text); !reflect.DeepEqual(b, want) {
		t.Fatalf("got %+v", b)
	}
	_, reasons := ParseBlocks(strings.Replace(seedBlock, "Phase: design", "Status: testing", 1))
	if len(reasons) != 1 || reasons[0] != "duplicate Status: line" {
		t.Fatalf("rejections %q", reasons)
	}
}
