//go:build !e2e

package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/atomicfile"
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

// A torn latest file is restored from the newest intact copy: the
// history, which holds the very record lost; then the newest backup (one
// record older); with neither, it is put aside and said lost.
func TestCorruptCheckpointRestoredFromNewestCopy(t *testing.T) {
	s, _ := newStore(t)
	var heard []string
	s.OnRestore = func(file, from string, cp *protocol.Checkpoint) {
		heard = append(heard, filepath.Base(file)+" <- "+from)
	}
	for _, p := range []int{10, 20, 30} {
		c := cp(p)
		c.CheckpointID = fmt.Sprintf("w1-T060-%d", p)
		if err := s.Save(c); err != nil {
			t.Fatal(err)
		}
	}
	torn := []byte(`{"checkpoint_id": "c", "progress_perc`)
	os.WriteFile(s.path("w1", "T060"), torn, 0o600)
	got, err := s.Load("w1", "T060")
	if err != nil || got.ProgressPercent != 30 {
		t.Fatalf("restored %+v %v, want the 30 %% record from the history", got, err)
	}
	again, err := s.Load("w1", "T060")
	if err != nil || again.ProgressPercent != 30 {
		t.Fatalf("after restore: %+v %v", again, err)
	}

	os.RemoveAll(filepath.Join(s.dir, "history"))
	os.WriteFile(s.path("w1", "T060"), torn, 0o600)
	if got, err := s.Load("w1", "T060"); err != nil || got.ProgressPercent != 20 {
		t.Fatalf("with no history: %+v %v, want the newest backup's 20 %%", got, err)
	}
	want := []string{"w1-T060.json <- " + filepath.Join(s.dir, "history", "T060", "w1-T060-30.json")}
	if len(heard) < 1 || heard[0] != want[0] {
		t.Errorf("OnRestore heard %q, want first %q", heard, want)
	}
}

func TestCorruptWithoutCopyIsPutAsideAndSaidLost(t *testing.T) {
	s, _ := newStore(t)
	var heard []string
	s.OnRestore = func(file, from string, cp *protocol.Checkpoint) {
		heard = append(heard, filepath.Base(file)+" <- "+from)
	}
	os.WriteFile(s.path("w1", "T1"), []byte("garbage"), 0o600)
	ro := &Store{dir: s.dir, log: hclog.NewNullLogger(), now: time.Now, readOnly: true}
	if _, err := ro.Load("w1", "T1"); err == nil {
		t.Fatal("a read-only store loaded a corrupt checkpoint with no copy without error")
	}
	if got, err := s.Load("w1", "T1"); got != nil || err != nil {
		t.Fatalf("corrupt checkpoint with no copy: %+v %v, want none", got, err)
	}
	if len(heard) != 1 || heard[0] != "w1-T1.json <- " {
		t.Errorf("OnRestore heard %q", heard)
	}
	if aside, _ := filepath.Glob(s.path("w1", "T1") + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("put aside: %v", aside)
	}
	if got, err := s.Load("w1", "T1"); got != nil || err != nil || len(heard) != 1 {
		t.Fatalf("the loss was heard again, or: %+v %v", got, err)
	}
}

// Latest trusts only records of the run asked for, and finds the run's
// newest record in the history when its file is gone.
func TestLatestIsTheRunsOwn(t *testing.T) {
	s, _ := newStore(t)
	s.SetRun("R0")
	old := cp(90)
	old.CheckpointID = "w1-T060-r0"
	s.Save(old)
	s.Archive("w1", "T060")
	s.SetRun("R1")
	for _, p := range []int{10, 20} {
		c := cp(p)
		c.CheckpointID = fmt.Sprintf("w1-T060-%d", p)
		c.UpdatedAt = time.Date(2026, 11, 22, 4, 0, p, 0, time.UTC)
		s.Save(c)
	}
	if done, _ := s.CompletedTasks("R1"); done["T060"] {
		t.Error("R0's -complete archive completed T060 in R1")
	}
	if done, _ := s.CompletedTasks("R0"); !done["T060"] {
		t.Error("R0's own archive does not complete T060 in R0")
	}
	if got := s.Latest("T060", "R1", time.Time{}); got == nil || got.ProgressPercent != 20 || got.RunID != "R1" {
		t.Fatalf("Latest of R1: %+v", got)
	}
	if got := s.Latest("T060", "R2", time.Time{}); got != nil {
		t.Fatalf("Latest of a run with no record: %+v", got)
	}
	os.Remove(s.path("w1", "T060"))
	got, file := s.LatestFile("T060", "R1", time.Time{})
	if got == nil || got.ProgressPercent != 20 || file != filepath.Join("history", "T060", "w1-T060-20.json") {
		t.Fatalf("with the latest file deleted: %+v from %q, want the history's 20 %%", got, file)
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
	syncs := atomicfile.Syncs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c.ProgressPercent = i % 100
		c.CheckpointID = fmt.Sprintf("w1-T060-%d", i)
		if err := s.Save(c); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(median(lat).Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(atomicfile.Syncs()-syncs)/float64(b.N), "fsyncs/record")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// The index is derived from the history's record files: one torn, or one
// that misses records (its unsynced write lost to a crash), is rebuilt
// from them when the store opens; an entry whose file is gone is dropped.
func TestIndexIsRebuiltFromTheRecords(t *testing.T) {
	s, _ := newStore(t)
	for _, p := range []int{10, 20, 30} {
		c := cp(p)
		c.CheckpointID = fmt.Sprintf("w1-T060-%d", p)
		c.UpdatedAt = time.Date(2026, 11, 22, 4, 0, p, 0, time.UTC)
		if err := s.Save(c); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Dir(s.dir)
	index := filepath.Join(s.dir, "index.json")
	for name, damage := range map[string]func(){
		"torn": func() { os.WriteFile(index, []byte(`[{"checkpoint_id": "w1-T0`), 0o600) },
		"stale": func() {
			h := &history{dir: s.dir}
			h.load()
			b, _ := json.Marshal(h.entries[:1]) // a crash kept the first version
			os.WriteFile(index, b, 0o600)
		},
		"gone": func() { os.Remove(index) },
	} {
		damage()
		s2, err := NewStore(hclog.NewNullLogger(), s.dir, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadHistory(root, "T060")
		if err != nil || len(got) != 3 || got[0].ID != "w1-T060-30" || got[2].ID != "w1-T060-10" {
			t.Errorf("%s index: history %+v %v, want the three records newest first", name, got, err)
		}
		if cp, file := s2.LatestFile("T060", "", time.Time{}); cp != nil || file != "" {
			t.Errorf("%s index: a run-less Latest found %v", name, file)
		}
		// The rebuilt index was written when the next record came.
		c := cp(40)
		c.CheckpointID = "w1-T060-40-" + name
		c.UpdatedAt = time.Date(2026, 11, 22, 4, 1, 0, 0, time.UTC)
		s2.Save(c)
		os.Remove(filepath.Join(s.dir, "history", "T060", c.CheckpointID+".json")) // and a record file gone
		if got, _ := NewStore(hclog.NewNullLogger(), s.dir, time.Now); got != nil {
			h, _ := ReadHistory(root, "T060")
			if len(h) != 3 {
				t.Errorf("%s index: an entry whose file is gone stayed: %+v", name, h)
			}
		}
	}
}

// A backup is the version replaced, whole, though it is a link and not a
// copy: the latest is replaced by rename, never changed in place.
func TestBackupIsTheVersionReplaced(t *testing.T) {
	s, _ := newStore(t)
	for _, p := range []int{10, 20} {
		c := cp(p)
		c.CheckpointID = fmt.Sprintf("w1-T060-%d", p)
		s.Save(c)
	}
	backups, _ := s.backups("w1", "T060")
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	b, _ := os.ReadFile(backups[0])
	var old protocol.Checkpoint
	if err := json.Unmarshal(b, &old); err != nil || old.ProgressPercent != 10 {
		t.Errorf("the backup holds %+v %v, want the 10 %% version", old, err)
	}
}
