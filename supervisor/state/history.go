package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// Entry is one record of the checkpoint history, as checkpoints/index.json
// lists it.
type Entry struct {
	ID       string `json:"checkpoint_id"`
	Run      string `json:"run_id,omitempty"`
	Task     string `json:"task"`
	Agent    string `json:"agent"`
	Trigger  string `json:"trigger"`
	Cause    string `json:"cause,omitempty"`
	Status   string `json:"status"`
	Progress int    `json:"progress"`
	// Resumable is the record's resumable: false when the task was reported
	// complete or the agent said it cannot be resumed from.
	Resumable bool      `json:"resumable"`
	Time      time.Time `json:"time"`
	Path      string    `json:"path"` // relative to checkpoints/
}

// entryOf is cp's entry in the index, its record at rel.
func entryOf(cp *protocol.Checkpoint, rel string) Entry {
	return Entry{ID: cp.CheckpointID, Run: cp.RunID, Task: cp.TaskID, Agent: cp.Agent, Trigger: cp.Trigger,
		Cause: cp.Cause, Status: cp.Status, Progress: cp.ProgressPercent, Resumable: cp.Resumable, Time: cp.UpdatedAt, Path: rel}
}

// indexEntry is an entry as index.json holds it: an index written before
// entries said whether their record is resumable has no such field
// (Resumable nil), and load reads it from the record.
type indexEntry struct {
	Entry
	Resumable *bool `json:"resumable"`
}

// history keeps every record under checkpoints/history/{task}/{id}.json,
// listed in checkpoints/index.json, with checkpoints/latest naming the
// newest; the retention policy is applied after each write.
type history struct {
	dir string // checkpoints/
	ret config.Retention
	now func() time.Time

	mu      sync.Mutex
	entries []Entry // oldest first
	// trust judges a record read from the history (Store.trustOf); nil
	// trusts every one.
	trust func(file string, cp *protocol.Checkpoint) trust
}

func (h *history) indexPath() string { return filepath.Join(h.dir, "index.json") }

// load reads index.json (a missing one is an empty history).
func (h *history) load() error {
	b, err := safefile.ReadFile(h.indexPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read checkpoint index: %w", err)
	}
	var listed []indexEntry
	if err := json.Unmarshal(b, &listed); err != nil {
		return fmt.Errorf("decode checkpoint index: %w", err)
	}
	// A path that is not a record's (an index written by hand) is never
	// read or removed: it could name a file outside the state dir.
	// Its text is shown by `warden checkpoints`: no control character.
	h.entries = h.entries[:0]
	for _, le := range listed {
		e := le.Entry
		if !recordPath(e.Path) {
			continue
		}
		e.ID, e.Run, e.Task, e.Agent, e.Trigger = protocol.Plain(e.ID), protocol.Plain(e.Run), protocol.Plain(e.Task), protocol.Plain(e.Agent), protocol.Plain(e.Trigger)
		e.Cause, e.Status = protocol.Plain(e.Cause), protocol.Plain(e.Status)
		if le.Resumable != nil {
			e.Resumable = *le.Resumable
		} else if cp := h.read(e.Path); cp != nil {
			e.Resumable = cp.Resumable // an older index: the record says
		}
		h.entries = append(h.entries, e)
	}
	return nil
}

// read is the record at rel (relative to checkpoints/), or nil when it
// cannot be read.
func (h *history) read(rel string) *protocol.Checkpoint {
	b, err := safefile.ReadFile(filepath.Join(h.dir, rel))
	if err != nil {
		return nil
	}
	var cp protocol.Checkpoint
	if json.Unmarshal(b, &cp) != nil {
		return nil
	}
	return &cp
}

// reconcile adds to the index the record files it does not list (its
// unsynced write lost to a crash, or the index torn) and drops entries whose
// file is gone; it returns how many it added. The record files are the
// durable history; the index is derived from them.
func (h *history) reconcile() int {
	files, err := filepath.Glob(filepath.Join(h.dir, "history", "*", "*.json"))
	if err != nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	listed := map[string]bool{}
	for _, e := range h.entries {
		listed[e.Path] = true
	}
	onDisk := map[string]bool{}
	added := 0
	for _, f := range files {
		rel, err := filepath.Rel(h.dir, f)
		if err != nil || !recordPath(filepath.ToSlash(rel)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		onDisk[rel] = true
		if listed[rel] {
			continue
		}
		b, err := safefile.ReadFile(f)
		var cp protocol.Checkpoint
		if err != nil || json.Unmarshal(b, &cp) != nil || cp.CheckpointID == "" {
			continue
		}
		e := entryOf(&cp, rel)
		e.ID, e.Run, e.Task, e.Agent, e.Trigger = protocol.Plain(e.ID), protocol.Plain(e.Run), protocol.Plain(e.Task), protocol.Plain(e.Agent), protocol.Plain(e.Trigger)
		e.Cause, e.Status = protocol.Plain(e.Cause), protocol.Plain(e.Status)
		h.entries = append(h.entries, e)
		added++
	}
	kept := h.entries[:0]
	for _, e := range h.entries {
		if onDisk[e.Path] {
			kept = append(kept, e)
		}
	}
	h.entries = kept
	sort.SliceStable(h.entries, func(i, j int) bool { return h.entries[i].Time.Before(h.entries[j].Time) })
	return added
}

// recordPath reports whether rel names a record file: history/{task}/{id}.json.
func recordPath(rel string) bool {
	parts := strings.Split(rel, "/")
	return filepath.IsLocal(rel) && len(parts) == 3 && parts[0] == "history" &&
		oneElement(parts[1]) && oneElement(parts[2]) && strings.HasSuffix(rel, ".json")
}

// keep writes cp's record file, durably: the one copy of a record that is
// synced (the latest file, the backups and the index are placed without a
// sync, and rebuilt from these files when a crash tears them).
func (h *history) keep(cp *protocol.Checkpoint, data []byte) error {
	if err := safefile.WriteAtomic(filepath.Dir(h.dir), filepath.Join(h.dir, recordRel(cp)), data); err != nil {
		return fmt.Errorf("keep checkpoint history: %w", err)
	}
	return nil
}

// recordRel is where cp's record file is, relative to checkpoints/.
func recordRel(cp *protocol.Checkpoint) string {
	return filepath.Join("history", cp.TaskID, cp.CheckpointID+".json")
}

// add lists cp, kept, in the index and applies the retention policy to its
// task; index.json and latest are derived (written unsynced, rebuilt from
// the record files at load).
func (h *history) add(cp *protocol.Checkpoint) error {
	rel := recordRel(cp)
	h.mu.Lock()
	defer h.mu.Unlock()
	e := entryOf(cp, rel)
	if i := slices.IndexFunc(h.entries, func(o Entry) bool { return o.ID == e.ID }); i >= 0 {
		h.entries[i] = e // the same record, completed (late optional lines)
	} else {
		h.entries = append(h.entries, e)
	}
	h.retain(cp.TaskID)
	b, err := json.MarshalIndent(h.entries, "", "  ")
	if err != nil {
		return fmt.Errorf("encode checkpoint index: %w", err)
	}
	if err := safefile.WriteDerived(filepath.Dir(h.dir), h.indexPath(), append(b, '\n')); err != nil {
		return fmt.Errorf("write checkpoint index: %w", err)
	}
	return safefile.WriteDerived(filepath.Dir(h.dir), filepath.Join(h.dir, "latest"), []byte(rel+"\n"))
}

// newest is the newest record of task in run the history holds, updated at
// or after since, that can be read; with its path relative to
// checkpoints/. A nil history has none.
func (h *history) newest(task, run string, since time.Time) (*protocol.Checkpoint, string) {
	if h == nil || run == "" {
		return nil, ""
	}
	h.mu.Lock()
	var mine []Entry
	for _, e := range h.entries {
		if e.Task == task && e.Run == run && !e.Time.Before(since) {
			mine = append(mine, e)
		}
	}
	h.mu.Unlock()
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].Time.After(mine[j].Time) })
	for _, e := range mine {
		b, err := safefile.ReadFile(filepath.Join(h.dir, e.Path))
		if err != nil {
			continue
		}
		var cp protocol.Checkpoint
		if json.Unmarshal(b, &cp) != nil || cp.TaskID != task || cp.RunID != run {
			continue
		}
		if h.trust != nil {
			if tr := h.trust(filepath.Join(h.dir, e.Path), &cp); tr == untrusted || tr == sealedComplete {
				continue // not warden's, or a completion: no point to resume from
			}
		}
		return &cp, e.Path
	}
	return nil, ""
}

// retain drops the records of task no rule keeps, and their files.
func (h *history) retain(task string) {
	var mine []int
	for i, e := range h.entries {
		if e.Task == task {
			mine = append(mine, i)
		}
	}
	drop := map[int]bool{}
	now := h.now()
	for k, i := range mine {
		e := h.entries[i]
		keep := k == len(mine)-1 || k >= len(mine)-h.ret.KeepLast || // the newest always: it is the task's durable copy
			(h.ret.KeepFor > 0 && now.Sub(e.Time) < h.ret.KeepFor) ||
			(h.ret.KeepTeamCheckpoints && e.Trigger == protocol.TriggerTeamCheckpoint) ||
			(h.ret.KeepStatusChanges && (k == 0 || h.entries[mine[k-1]].Status != e.Status))
		if !keep {
			drop[i] = true
			os.Remove(filepath.Join(h.dir, e.Path))
		}
	}
	if len(drop) == 0 {
		return
	}
	kept := h.entries[:0]
	for i, e := range h.entries {
		if !drop[i] {
			kept = append(kept, e)
		}
	}
	h.entries = kept
}

// ReadHistory lists the checkpoint history of the state dir at root,
// newest first; task "" lists every task.
func ReadHistory(root, task string) ([]Entry, error) {
	h := &history{dir: NewLayout(root).Checkpoints()}
	if err := h.load(); err != nil {
		h.entries = nil // rebuilt from the record files
	}
	h.reconcile()
	var out []Entry
	for _, e := range h.entries {
		if task == "" || e.Task == task {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out, nil
}

// Record reads the history's record id, when it is warden's (a sealing
// store: see trustOf); a record that is not is an error saying so.
func (s *Store) Record(id string) (*protocol.Checkpoint, error) {
	cp, err := FindRecord(filepath.Dir(s.dir), id)
	if err != nil || s.sealer == nil {
		return cp, err
	}
	file := filepath.Join(s.dir, recordRel(cp))
	if s.trustOf(file, cp) == untrusted {
		_, why := s.sealer.check(cp)
		return nil, fmt.Errorf("checkpoint %s was not written by warden (%v): it is not resumed from", id, why)
	}
	return cp, nil
}

// FindRecord reads the history record id of the state dir at root.
func FindRecord(root, id string) (*protocol.Checkpoint, error) {
	all, err := ReadHistory(root, "")
	if err != nil {
		return nil, err
	}
	for _, e := range all {
		if e.ID == id {
			b, err := safefile.ReadFile(filepath.Join(NewLayout(root).Checkpoints(), e.Path))
			if err != nil {
				return nil, fmt.Errorf("checkpoint %s: %w", id, err)
			}
			var cp protocol.Checkpoint
			if err := json.Unmarshal(b, &cp); err != nil {
				return nil, fmt.Errorf("checkpoint %s: %w", id, err)
			}
			return &cp, nil
		}
	}
	return nil, fmt.Errorf("no checkpoint %q in the history (warden checkpoints lists them)", id)
}

// PruneHandoffs applies the retention policy to handoffs/: the newest
// KeepLast and those younger than KeepFor stay.
func (d *Dir) PruneHandoffs(r config.Retention, now time.Time) error {
	names, err := filepath.Glob(filepath.Join(d.Handoffs(), "handoff-*.md"))
	if err != nil {
		return fmt.Errorf("list handoffs: %w", err)
	}
	sort.Strings(names) // their names carry the UTC time
	for i, n := range names {
		if i >= len(names)-r.KeepLast {
			break
		}
		if fi, err := os.Stat(n); err == nil && r.KeepFor > 0 && now.Sub(fi.ModTime()) < r.KeepFor {
			continue
		}
		if err := os.Remove(n); err != nil {
			return fmt.Errorf("prune handoffs: %w", err)
		}
	}
	return nil
}
