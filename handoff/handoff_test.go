package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
)

func sample() Data {
	return Data{
		Team: "nightly", Reason: "signal file checkpoint-needed", Time: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		Agents: []Agent{{Name: "w1", Profile: "plain", State: "stopped", Command: []string{"agent", "--x"}},
			{Name: "w2", Profile: "claude", State: "stopped", Forced: true}},
		Tasks: []Task{
			{ID: "T1", Title: "done one", Status: "complete", Owner: "w1", Progress: 100, Verify: "passed"},
			{ID: "T2", Title: "open | one", Status: "pending", Owner: "w2", Progress: 40, BlockedBy: []string{"T1"}},
			{ID: "T3", Title: "not started", Status: "blocked", BlockedBy: []string{"T2"}},
		},
		Checkpoints: map[string]*protocol.Checkpoint{"T2": {TaskID: "T2", Attempt: 1, ProgressPercent: 40,
			Status: "implementing", Completed: []string{"parser"}, Remaining: []string{"tests"},
			ResumeInstructions: "run go test first"}},
	}
}

func TestRenderHasEveryPart(t *testing.T) {
	md := Render(sample())
	for _, want := range []string{
		"# Handoff: nightly", "Reason: signal file checkpoint-needed", "2026-11-22T03:00:00Z",
		"| w2 | claude | stopped (killed after shutdown_timeout) |",
		"| T1 | done one | complete | w1 | 100% | - |", "| T2 | open \\| one | pending | w2 | 40% | T1 |",
		"| T3 | not started | blocked | - | 0% | T2 |",
		"- T1: passed", "### T2: open | one", "Resume instructions from the previous session: run go test first",
		"  * tests", "### T3: not started", "No checkpoint yet",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("handoff lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "### T1") {
		t.Error("a complete task has resumption notes")
	}
}

func TestWriteKeepsEveryHandoff(t *testing.T) {
	dir := t.TempDir()
	d := sample()
	for i := 0; i < 2; i++ {
		d.Time = d.Time.Add(time.Minute)
		p := filepath.Join(dir, "handoff.md")
		if err := Write(p, filepath.Join(dir, "handoffs"), d); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("handoff.md mode %v", fi.Mode().Perm())
		}
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "handoffs", "*.md"))
	if len(kept) != 2 {
		t.Fatalf("handoffs/ holds %v", kept)
	}
}

func TestWriteFailsOnReadOnlyStateDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "handoffs"), []byte("a file where the directory goes"), 0o600)
	if err := Write(filepath.Join(dir, "handoff.md"), filepath.Join(dir, "handoffs"), sample()); err == nil {
		t.Fatal("handoff written where it cannot be")
	}
	if _, err := os.Stat(filepath.Join(dir, "handoff.md")); err == nil {
		t.Fatal("handoff.md written although the sequence failed")
	}
}
