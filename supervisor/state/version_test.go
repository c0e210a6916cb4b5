//go:build !e2e

package state

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
)

// Every record written carries its schema version: the history file and
// the latest file both say "version": 1 (issue 31).
func TestAWrittenRecordCarriesItsVersion(t *testing.T) {
	s, _ := newStore(t)
	c := cp(40)
	c.CheckpointID = "w1-T060-40"
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.path("w1", "T060"), filepath.Join(s.dir, "history", "T060", "w1-T060-40.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if v, ok := raw["version"].(float64); !ok || v != protocol.RecordVersion || protocol.RecordVersion != 1 {
			t.Errorf("%s: version %v (%T), want 1:\n%s", filepath.Base(p), raw["version"], raw["version"], b)
		}
	}
	// A record made from a block is stamped with it as well.
	blocks, _ := protocol.ParseBlocks("CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- a\nRemaining:\n- b\nFiles Modified: none\nEstimated Progress: 10%\n")
	if len(blocks) != 1 {
		t.Fatalf("blocks %v", blocks)
	}
	if rec := protocol.NewRecord(blocks[0], protocol.Origin{Agent: "w1", At: time.Now()}); rec.Version != 1 {
		t.Errorf("NewRecord's version %d, want 1", rec.Version)
	}
}

// Every entry of index.json says whether its record is resumable, as the
// record does; `warden checkpoints` (ReadHistory) reads it (issue 31).
func TestIndexEntriesSayWhetherTheRecordIsResumable(t *testing.T) {
	s, _ := newStore(t)
	yes := cp(20)
	yes.CheckpointID, yes.Resumable, yes.UpdatedAt = "w1-T060-20", true, time.Date(2026, 11, 22, 4, 0, 20, 0, time.UTC)
	no := cp(50)
	no.CheckpointID, no.Resumable, no.UpdatedAt = "w1-T060-50", false, time.Date(2026, 11, 22, 4, 0, 50, 0, time.UTC)
	for _, c := range []*protocol.Checkpoint{yes, no} {
		if err := s.Save(c); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(s.dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"w1-T060-20": true, "w1-T060-50": false}
	if len(raw) != 2 {
		t.Fatalf("index %s", b)
	}
	for _, e := range raw {
		r, ok := e["resumable"].(bool)
		if !ok || r != want[e["checkpoint_id"].(string)] {
			t.Errorf("entry %v: resumable %v, want %v", e["checkpoint_id"], e["resumable"], want[e["checkpoint_id"].(string)])
		}
	}
	h, err := ReadHistory(filepath.Dir(s.dir), "T060")
	if err != nil || len(h) != 2 || h[0].Resumable || !h[1].Resumable {
		t.Errorf("ReadHistory %+v %v: want the 50 %% record not resumable, the 20 %% one resumable", h, err)
	}
}

// A record written before records had a version (and an index written
// before its entries said whether their record is resumable) still loads:
// the record as version 1, the entry's resumable read from the record.
func TestAnOldRecordWithoutVersionStillLoads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checkpoints")
	old := []byte(`{
  "checkpoint_id": "w1-T1-old",
  "run_id": "R1",
  "agent": "w1",
  "task_id": "T1",
  "task_title": "",
  "session_id": "s1",
  "attempt": 2,
  "trigger": "request",
  "status": "implementing",
  "progress_percent": 60,
  "completed": ["half"],
  "remaining": ["the rest"],
  "files_modified": ["a.go"],
  "blockers": null,
  "notes": "",
  "resume_instructions": "carry on",
  "resumable": true,
  "started_at": "2026-11-22T03:00:00Z",
  "updated_at": "2026-11-22T03:10:00Z",
  "completed_at": null,
  "next_checkpoint_expected": null
}
`)
	if bytes.Contains(old, []byte("version")) {
		t.Fatal("the old record has a version")
	}
	for _, p := range []string{filepath.Join(dir, "w1-T1.json"), filepath.Join(dir, "history", "T1", "w1-T1-old.json")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, old, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	index := []byte(`[{"checkpoint_id": "w1-T1-old", "run_id": "R1", "task": "T1", "agent": "w1", "trigger": "request",
  "status": "implementing", "progress": 60, "time": "2026-11-22T03:10:00Z", "path": "history/T1/w1-T1-old.json"}]`)
	if err := os.WriteFile(filepath.Join(dir, "index.json"), index, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := NewStore(hclog.NewNullLogger(), dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("w1", "T1")
	if err != nil || got == nil || got.Version != 1 || got.ProgressPercent != 60 || got.ResumeInstructions != "carry on" || !got.Resumable {
		t.Fatalf("Load: %+v %v; want the 60 %% record, version 1", got, err)
	}
	if latest := s.Latest("T1", "R1", time.Time{}); latest == nil || latest.Version != 1 || latest.CheckpointID != "w1-T1-old" {
		t.Errorf("Latest %+v", latest)
	}
	rec, err := FindRecord(filepath.Dir(dir), "w1-T1-old")
	if err != nil || rec.Version != 1 {
		t.Errorf("FindRecord %+v %v", rec, err)
	}
	h, err := ReadHistory(filepath.Dir(dir), "T1")
	if err != nil || len(h) != 1 || !h[0].Resumable {
		t.Errorf("ReadHistory %+v %v: want the old entry, resumable as its record says", h, err)
	}
}
