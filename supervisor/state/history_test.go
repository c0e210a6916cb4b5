//go:build !e2e

package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// Every record is kept in the history, listed in index.json, with latest
// naming the newest; the retention policy keeps status changes, team
// checkpoints and the last N records of each task, and drops the rest
// (their files too).
func TestHistoryAndRetention(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st, err := NewStore(hclog.NewNullLogger(), NewLayout(root).Checkpoints(), clock)
	if err != nil {
		t.Fatal(err)
	}
	st.SetRetention(config.Retention{KeepStatusChanges: true, KeepTeamCheckpoints: true, KeepLast: 3, KeepFor: time.Hour})
	save := func(i int, status, trigger string) {
		now = now.Add(10 * time.Minute) // older than KeepFor after 6 saves
		cp := &protocol.Checkpoint{CheckpointID: "c" + string(rune('a'+i)), Agent: "w1", TaskID: "T1", Status: status,
			Trigger: trigger, ProgressPercent: i, UpdatedAt: now}
		if err := st.Save(cp); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 12; i++ {
		status, trigger := "implementing", protocol.TriggerRequest
		if i == 4 {
			status = "testing" // a status change
		}
		if i == 5 {
			status = "implementing" // and back
		}
		if i == 2 {
			trigger = protocol.TriggerTeamCheckpoint
		}
		save(i, status, trigger)
	}
	entries, err := ReadHistory(root, "T1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	// Newest first: the last 3 (l, k, j) and the last hour's (j..g: 6 saves
	// at 10 minutes, the newest not older than 1h), the status changes
	// (e testing, f back), the team checkpoint (c), the first record (a).
	want := "cl ck cj ci ch cg cf ce cc ca"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("history %s, want %s", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(root, "checkpoints", "history", "T1", "*.json"))
	if len(files) != len(ids) {
		t.Errorf("%d files kept for %d records", len(files), len(ids))
	}
	latest, _ := os.ReadFile(filepath.Join(root, "checkpoints", "latest"))
	if strings.TrimSpace(string(latest)) != filepath.Join("history", "T1", "cl.json") {
		t.Errorf("latest = %q", latest)
	}
	if cp, err := FindRecord(root, "ce"); err != nil || cp.Status != "testing" || cp.ProgressPercent != 4 {
		t.Errorf("FindRecord: %+v, %v", cp, err)
	}
	if _, err := FindRecord(root, "cb"); err == nil {
		t.Error("a dropped record was found")
	}
	all, _ := st.All()
	if _, ok := all["index.json"]; ok || len(all) != 1 {
		t.Errorf("All() = %v: the index is not a checkpoint", all)
	}
}
