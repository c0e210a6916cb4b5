//go:build !e2e

package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recording is the JSON beside each raw pty capture in testdata/cli-*/.
type recording struct {
	CLI   string `json:"cli"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Typed []struct {
		Offset int    `json:"offset"`
		Text   string `json:"text"`
	} `json:"typed"`
	Blocks []struct {
		Task      string   `json:"task_id"`
		Status    string   `json:"status"`
		Completed []string `json:"completed"`
		Remaining []string `json:"remaining"`
		Files     []string `json:"files_modified"`
		Progress  int      `json:"progress_percent"`
		Blockers  []string `json:"blockers"`
		Notes     string   `json:"notes"`
		Resume    string   `json:"resume"`
	} `json:"blocks"`
}

// TestReplayRealCLIs replays every recorded Claude Code / Codex / Gemini
// session: the screen reader must extract each block in it exactly once,
// with the fields the fake provider sent, and nothing else. Quiet is called
// where the recording typed (the CLI was idle) and at the end.
func TestReplayRealCLIs(t *testing.T) {
	files, _ := filepath.Glob("testdata/cli-*/*.json")
	if len(files) == 0 {
		t.Skip("no recordings in testdata/cli-*/")
	}
	for _, jf := range files {
		raw, err := os.ReadFile(strings.TrimSuffix(jf, ".json") + ".raw")
		if err != nil {
			continue // a JSON without its capture is not a recording
		}
		t.Run(strings.TrimPrefix(jf, "testdata/"), func(t *testing.T) {
			var rec recording
			data, err := os.ReadFile(jf)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatalf("decode %s: %v", jf, err)
			}
			c := newCollector()
			r := NewReader(testLogger(t), c.options(ModeScreen, rec.Cols, rec.Rows))
			defer r.Close()
			at := 0
			for _, ty := range rec.Typed {
				end := min(max(ty.Offset, at), len(raw))
				feed(r, string(raw[at:end]), 4096)
				at = end
				r.Quiet()
				if strings.TrimSpace(ty.Text) != "" {
					r.Typed(ty.Text)
				}
			}
			feed(r, string(raw[at:]), 4096)
			r.Quiet()
			r.Flush()
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.rejects) != 0 {
				t.Errorf("rejections: %q", c.rejects)
			}
			if len(c.blocks) != len(rec.Blocks) {
				t.Fatalf("got %d blocks, want %d: %+v", len(c.blocks), len(rec.Blocks), c.blocks)
			}
			for i, w := range rec.Blocks {
				want := Block{Task: w.Task, Status: w.Status, Completed: w.Completed, Remaining: w.Remaining,
					FilesModified: w.Files, Progress: w.Progress, Blockers: w.Blockers, Notes: w.Notes, Resume: w.Resume}
				if got := c.blocks[i]; got.Key() != want.Key() {
					t.Errorf("block %d:\ngot  %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
}
