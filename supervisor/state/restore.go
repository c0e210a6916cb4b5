package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
)

// restore answers for a checkpoint file p that does not parse (DESIGN §5):
// its newest intact copy — the history's records first (every record is
// there, the one lost too), then backups/ — is written back and returned;
// an archive (_crashed_, -complete) is restored only from a copy no newer
// than itself. With no intact copy the file is put aside as
// p.corrupt-{stamp}, so that it is reported once, and (nil, nil) says
// there is no checkpoint. Either way OnRestore hears of it. A read-only
// store (warden status) returns the copy and changes nothing.
func (s *Store) restore(p string) (*protocol.Checkpoint, error) {
	limit := time.Time{}
	if archived(filepath.Base(p)) {
		if fi, err := os.Lstat(p); err == nil {
			limit = fi.ModTime()
		}
	}
	key := pairOf(filepath.Base(p))
	cp, data, from := s.newestIntact(s.historyCopies(key), key, limit)
	if cp == nil {
		cp, data, from = s.newestIntact(s.backupCopies(key), key, limit)
	}
	if s.readOnly {
		if cp == nil {
			return nil, fmt.Errorf("checkpoint %s is corrupt and has no intact copy", p)
		}
		return cp, nil
	}
	if cp == nil {
		s.log.Error("checkpoint does not parse and no intact copy of it is left: put aside", "file", p)
		aside := p + ".corrupt-" + s.now().UTC().Format("20060102T150405Z")
		if err := os.Rename(p, aside); err != nil {
			return nil, fmt.Errorf("checkpoint %s is corrupt, has no intact copy, and cannot be put aside: %w", p, err)
		}
		if s.OnRestore != nil {
			s.OnRestore(p, "", nil)
		}
		return nil, nil
	}
	if err := s.write(p, data); err != nil {
		return nil, err
	}
	s.log.Warn("checkpoint did not parse: restored from its newest intact copy", "file", p, "from", from)
	if s.OnRestore != nil {
		s.OnRestore(p, from, cp)
	}
	return cp, nil
}

// archived reports whether name is an archive rather than a latest record.
func archived(name string) bool {
	return strings.HasSuffix(name, "-complete.json") || strings.Contains(name, "_crashed_") || strings.Contains(name, "_aborted_")
}

// pairOf is the {agent}-{task} a checkpoint file's name is of.
func pairOf(name string) string {
	base := strings.TrimSuffix(name, ".json")
	base = strings.TrimSuffix(base, "-complete")
	for _, mark := range []string{"_crashed_", "_aborted_"} {
		if i := strings.LastIndex(base, mark); i >= 0 {
			base = base[:i]
		}
	}
	return base
}

// historyCopies lists the history's record files of the pair
// {agent}-{task}, as its index names them.
func (s *Store) historyCopies(pair string) []string {
	h := s.hist
	if h == nil { // a read-only store: the index as it is on disk
		h = &history{dir: s.dir}
		if h.load() != nil {
			return nil
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.entries {
		if e.Agent+"-"+e.Task == pair {
			out = append(out, filepath.Join(s.dir, e.Path))
		}
	}
	return out
}

// backupCopies lists the backups of the pair {agent}-{task}.
func (s *Store) backupCopies(pair string) []string {
	all, err := filepath.Glob(filepath.Join(s.dir, "backups", pair+"_*.json"))
	if err != nil {
		return nil
	}
	sort.Strings(all)
	return all
}

// newestIntact reads files and returns the newest record (by updated_at)
// that parses, is of pair ({agent}-{task}) and, when limit is
// set, is no newer than limit; with its bytes and file.
func (s *Store) newestIntact(files []string, pair string, limit time.Time) (*protocol.Checkpoint, []byte, string) {
	var best *protocol.Checkpoint
	var data []byte
	from := ""
	for _, f := range files {
		b, err := safefile.ReadFile(f)
		if err != nil {
			continue
		}
		var cp protocol.Checkpoint
		if json.Unmarshal(b, &cp) != nil || cp.Agent+"-"+cp.TaskID != pair {
			continue
		}
		if !limit.IsZero() && cp.UpdatedAt.After(limit) {
			continue
		}
		if s.sealer != nil {
			if s.trustOf(f, &cp) == untrusted {
				continue // never restored from a copy that is not warden's
			}
		}
		if best == nil || !cp.UpdatedAt.Before(best.UpdatedAt) { // files come oldest first
			best, data, from = &cp, b, f
		}
	}
	return best, data, from
}
