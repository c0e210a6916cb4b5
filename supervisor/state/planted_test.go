//go:build !e2e

package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// Links planted while the team runs are never followed either: a task's
// history directory (the record is refused), a checkpoint file (read, then backed up: its target
// would be copied into the state dir), the signal file's directory. And a
// hand-written index.json never makes warden remove a file outside.
func TestLinksPlantedWhileRunning(t *testing.T) {
	base := t.TempDir()
	victim, victimDir := filepath.Join(base, "victim.json"), filepath.Join(base, "victim-dir")
	os.WriteFile(victim, []byte(`{"task_id":"T1","notes":"from outside"}`), 0o644)
	os.Mkdir(victimDir, 0o755)
	root := filepath.Join(base, "state")
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	st, err := NewStore(hclog.NewNullLogger(), d.Checkpoints(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(d.Checkpoints(), "history"), 0o700)
	os.Symlink(victimDir, filepath.Join(d.Checkpoints(), "history", "T1"))
	cp := &protocol.Checkpoint{CheckpointID: "c1", Agent: "w1", TaskID: "T1", Status: "implementing", UpdatedAt: now}
	// The record's durable copy would go through the link: refused, the
	// record not saved (the WARNING it makes says it does not count).
	if err := st.Save(cp); !errors.Is(err, safefile.ErrSymlink) {
		t.Fatalf("save with its history directory linked: %v, want the link refused", err)
	}
	if ents, _ := os.ReadDir(victimDir); len(ents) != 0 {
		t.Fatalf("made through the link: %v", ents)
	}
	os.WriteFile(filepath.Join(d.Checkpoints(), "w1-T1.json"), []byte(`{"task_id":"T1","agent":"w1"}`), 0o600)
	os.Remove(filepath.Join(d.Checkpoints(), "w1-T1.json"))
	os.Symlink(victim, filepath.Join(d.Checkpoints(), "w1-T1.json"))
	if got, err := st.Load("w1", "T1"); !errors.Is(err, safefile.ErrSymlink) || got != nil {
		t.Errorf("a checkpoint read through a link: %+v %v", got, err)
	}
	if err := st.Save(cp); !errors.Is(err, safefile.ErrSymlink) && err != nil {
		t.Errorf("save over a linked checkpoint: %v", err)
	}
	backups, _ := filepath.Glob(filepath.Join(d.Checkpoints(), "backups", "*"))
	for _, b := range backups {
		if data, _ := os.ReadFile(b); strings.Contains(string(data), "from outside") {
			t.Errorf("the file outside was copied into %s", b)
		}
	}
	os.WriteFile(filepath.Join(d.Checkpoints(), "index.json"),
		[]byte(`[{"checkpoint_id":"x","task":"T1","status":"implementing","time":"2020-01-01T00:00:00Z","path":"../../victim.json"}]`), 0o600)
	st2, err := NewStore(hclog.NewNullLogger(), d.Checkpoints(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	st2.SetRetention(config.Retention{KeepLast: 1}) // the first entry is dropped
	st2.Save(&protocol.Checkpoint{CheckpointID: "c2", Agent: "w2", TaskID: "T1", Status: "implementing", UpdatedAt: now})
	if _, err := FindRecord(root, "x"); err == nil {
		t.Error("a record outside the history was read")
	}

	os.Symlink(victimDir, filepath.Join(root, "sub"))
	if err := WriteSignal(root, filepath.Join(root, "sub", "checkpoint-needed"), SignalNote("manual", "x")); !errors.Is(err, safefile.ErrSymlink) {
		t.Errorf("signal file through a linked directory: %v", err)
	}
	if b, _ := os.ReadFile(victim); !strings.Contains(string(b), "from outside") {
		t.Errorf("the file outside was changed or removed: %q", b)
	}
	if ents, _ := os.ReadDir(victimDir); len(ents) != 0 {
		t.Errorf("files were made in the directory outside: %v", ents)
	}
}

// checkpoints/ or checkpoints/backups/ swapped for a link while the team
// runs: nothing is made where the link points (no checkpoint, backup,
// history, index or temporary file); a save through a linked checkpoints/
// is refused, naming the link, one with backups/ linked is kept without
// its backup.
func TestCheckpointDirsSwappedForLinksWhileRunning(t *testing.T) {
	for _, swapped := range []string{"checkpoints", filepath.Join("checkpoints", "backups")} {
		t.Run(filepath.Base(swapped), func(t *testing.T) {
			base := t.TempDir()
			outside := filepath.Join(base, "outside")
			os.Mkdir(outside, 0o755)
			d, err := Open(filepath.Join(base, "state"))
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
			st, err := NewStore(hclog.NewNullLogger(), d.Checkpoints(), func() time.Time { return now })
			if err != nil {
				t.Fatal(err)
			}
			cp := &protocol.Checkpoint{CheckpointID: "c1", Agent: "w1", TaskID: "T1", Status: "implementing", UpdatedAt: now}
			if err := st.Save(cp); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(d.Root, swapped)
			os.Rename(p, p+".moved") // the agent keeps the real one aside…
			os.Symlink(outside, p)   // …and plants a link to its own directory
			if swapped == "checkpoints" {
				os.WriteFile(filepath.Join(outside, "w1-T1.json"), []byte(`{"task_id":"T1"}`), 0o644)
			}
			cp.CheckpointID = "c2"
			err = st.Save(cp)
			switch swapped {
			case "checkpoints": // the record's durable copy cannot be made: not saved
				if !errors.Is(err, safefile.ErrSymlink) || !strings.Contains(err.Error(), p) {
					t.Errorf("save with %s linked: %v, want an error naming the link", swapped, err)
				}
			default: // only its backup is refused: the record is kept in the history
				if err != nil {
					t.Errorf("save with %s linked: %v, want it saved without the backup", swapped, err)
				}
			}
			if err := st.NoteCommit("w1", "T1", "c1", "abc"); err != nil && !errors.Is(err, safefile.ErrSymlink) {
				t.Errorf("note commit: %v", err)
			}
			if err := st.Archive("w1", "T1"); !errors.Is(err, safefile.ErrSymlink) && swapped == "checkpoints" {
				t.Errorf("archive with checkpoints/ linked: %v", err)
			}
			var names []string // only the agent's own file, unrenamed
			ents, _ := os.ReadDir(outside)
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if want := map[bool]string{true: "w1-T1.json", false: ""}[swapped == "checkpoints"]; strings.Join(names, " ") != want {
				t.Errorf("made or renamed where the link points: %v", names)
			}
		})
	}
}
