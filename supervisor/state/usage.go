package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
)

// NoteUsage records in record id of agent on task what its session spent
// in the end, read once its process had ended (a session's last record is
// made before its last turn's tokens are all in the CLI's files): in the
// record's history file, durably, and in the latest file while it holds
// that record. The same record, completed — no backup, no index change; a
// record the retention policy removed, or one of a task completed since
// (its latest file archived), is completed where it still is.
func (s *Store) NoteUsage(agent, task, id string, u protocol.Usage) error {
	var errs []error
	if s.hist != nil {
		p := filepath.Join(s.hist.dir, "history", task, id+".json")
		errs = append(errs, s.noteUsageIn(p, id, u, true))
	}
	errs = append(errs, s.noteUsageIn(s.path(agent, task), id, u, false))
	return errors.Join(errs...)
}

// noteUsageIn sets the usage of the record in file p when it is record id;
// durable: synced (the history's copy), else placed like a derived file.
func (s *Store) noteUsageIn(p, id string, u protocol.Usage, durable bool) error {
	data, err := safefile.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read checkpoint: %w", err)
	}
	var cp protocol.Checkpoint
	if json.Unmarshal(data, &cp) != nil || cp.CheckpointID != id {
		return nil // another record now (or torn: Load restores it)
	}
	purpose := ""
	if s.sealer != nil && cp.Mac != "" {
		// The same record, completed: sealed again as what it was — and
		// never a record that is not warden's, which must not come out of
		// here sealed.
		p2, err := s.sealer.check(&cp)
		if err != nil {
			return nil
		}
		purpose = p2
	}
	cp.Usage = &u
	if purpose != "" {
		if err := s.sealAs(&cp, purpose); err != nil {
			return err
		}
	}
	out, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	out = append(out, '\n')
	if durable {
		return safefile.WriteAtomic(filepath.Dir(s.dir), p, out)
	}
	return safefile.WriteDerived(filepath.Dir(s.dir), p, out)
}
