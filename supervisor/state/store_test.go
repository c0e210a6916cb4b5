package state

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
)

func newStore(t *testing.T) (*Store, *time.Time) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	s, err := NewStore(hclog.NewNullLogger(), filepath.Join(t.TempDir(), "checkpoints"), func() time.Time {
		now = now.Add(time.Second)
		return now
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, &now
}

func cp(progress int) *protocol.Checkpoint {
	return &protocol.Checkpoint{CheckpointID: "c", Agent: "w1", TaskID: "T060", Status: "implementing",
		ProgressPercent: progress, Remaining: []string{"write tests"}}
}

func TestSaveKeepsTenBackups(t *testing.T) {
	s, _ := newStore(t)
	for i := 0; i <= 14; i++ {
		if err := s.Save(cp(i)); err != nil {
			t.Fatal(err)
		}
	}
	backups, _ := s.backups("w1", "T060")
	if len(backups) != KeepBackups {
		t.Fatalf("%d backups, want %d", len(backups), KeepBackups)
	}
	got, err := s.Load("w1", "T060")
	if err != nil || got.ProgressPercent != 14 {
		t.Fatalf("latest = %+v, %v", got, err)
	}
	for _, b := range append(backups, s.path("w1", "T060")) {
		fi, _ := os.Stat(b)
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v", b, fi.Mode().Perm())
		}
	}
}

func TestCorruptCheckpointRestoredFromNewestBackup(t *testing.T) {
	s, _ := newStore(t)
	for _, p := range []int{10, 20, 30} {
		if err := s.Save(cp(p)); err != nil {
			t.Fatal(err)
		}
	}
	// A torn write of the latest file (as a crash of some other writer would leave).
	os.WriteFile(s.path("w1", "T060"), []byte(`{"checkpoint_id": "c", "progress_perc`), 0o600)
	got, err := s.Load("w1", "T060")
	if err != nil {
		t.Fatal(err)
	}
	if got.ProgressPercent != 20 {
		t.Fatalf("restored progress %d, want 20 (the newest backup)", got.ProgressPercent)
	}
	// The restored version is on disk again.
	again, err := s.Load("w1", "T060")
	if err != nil || again.ProgressPercent != 20 {
		t.Fatalf("after restore: %+v %v", again, err)
	}
}

func TestCorruptWithoutBackupIsAnError(t *testing.T) {
	s, _ := newStore(t)
	os.WriteFile(s.path("w1", "T1"), []byte("garbage"), 0o600)
	if _, err := s.Load("w1", "T1"); err == nil {
		t.Fatal("corrupt checkpoint without backup loaded without error")
	}
	if got, err := s.Load("w1", "none"); got != nil || err != nil {
		t.Fatalf("missing checkpoint: %v %v", got, err)
	}
}

func TestArchive(t *testing.T) {
	s, _ := newStore(t)
	s.Save(cp(100))
	if err := s.Archive("w1", "T060"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "w1-T060-complete.json")); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("w1", "T060"); got != nil {
		t.Fatal("archived checkpoint still the latest")
	}
}

func BenchmarkSaveWithBackup(b *testing.B) {
	s, err := NewStore(hclog.NewNullLogger(), filepath.Join(b.TempDir(), "checkpoints"), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	c := cp(50)
	c.Completed = []string{"parser", "store"}
	c.FilesModified = []string{"a.go", "b.go"}
	s.Save(c)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c.ProgressPercent = i % 100
		if err := s.Save(c); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(median(lat).Microseconds())/1000, "median-ms")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
