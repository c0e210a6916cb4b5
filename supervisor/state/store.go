package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/atomicfile"
	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// KeepBackups is how many earlier versions of a checkpoint are kept.
const KeepBackups = 10

// Store reads and writes the checkpoints directory of a state dir (DESIGN
// §5): the latest checkpoint per agent and task, the last ten before each
// overwrite in backups/, and the archive of a completed task. Every write is
// atomic; a checkpoint file that does not parse is restored from its newest
// good backup — by a Store that may write; a read-only one (`warden
// status`) reads the backup and leaves the files as they are.
type Store struct {
	dir      string
	log      hclog.Logger
	now      func() time.Time
	readOnly bool
	hist     *history
	faults   faults
	// run is the run every record saved is stamped with (SetRun).
	run string
	// OnRestore hears of a checkpoint file that did not parse: restored
	// from the copy named from, or lost (from "", cp nil) when no intact
	// copy was left. Set it before the team starts.
	OnRestore func(file, from string, cp *protocol.Checkpoint)
	// OnUntrusted hears of a record that is not warden's (issue 33: no
	// seal in a run warden seals, or a seal that does not match), once per
	// file and contents: file is relative to checkpoints/, why says what
	// is wrong. Such a record is never read as one. Set it before the team
	// starts; until it is set nothing is reported (nor marked as said).
	OnUntrusted func(file string, cp *protocol.Checkpoint, why string)

	sealer     *sealer // nil: records are neither sealed nor checked (SetKey)
	sealMu     sync.Mutex
	sealedRuns map[string]bool // runs looked for: whether they have a sealed record
	reported   map[string]bool // untrusted records said, by file and contents
}

// SetRun makes every record saved from now on carry run id (DESIGN §5).
// Call it before the team starts.
func (s *Store) SetRun(id string) { s.run = id }

// NewStore returns a store over dir (state_dir/checkpoints), creating it 0700.
func NewStore(logger hclog.Logger, dir string, now func() time.Time) (*Store, error) {
	if err := safefile.MkdirAll(filepath.Dir(dir), dir); err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	}
	if err := safefile.MkdirAll(dir, filepath.Join(dir, "backups")); err != nil {
		return nil, fmt.Errorf("checkpoint store: %w", err)
	}
	h := &history{dir: dir, ret: config.RetentionDefaults(), now: now}
	if err := h.load(); err != nil {
		logger.Warn("checkpoint index unreadable: rebuilt from the history's records", "error", err)
		h.entries = nil
	}
	if n := h.reconcile(); n > 0 {
		logger.Info("checkpoint index: records it did not list added from the history", "records", n)
	}
	return &Store{dir: dir, log: logger.Named("store"), now: now, hist: h}, nil
}

// SetRetention sets the history's retention policy (the team file's
// [retention]).
func (s *Store) SetRetention(r config.Retention) { s.hist.ret = r }

// ReadCheckpoints returns the latest checkpoint of every agent and task in
// the state dir at root (archived ones included), keyed by file name,
// without writing anything.
func ReadCheckpoints(logger hclog.Logger, root string) (map[string]*protocol.Checkpoint, error) {
	s := &Store{dir: NewLayout(root).Checkpoints(), log: logger.Named("store"), now: time.Now, readOnly: true}
	return s.All()
}

// write replaces p, a file under checkpoints/, atomically; every directory
// from the state dir down to p's is checked first (a link an agent swapped
// in since NewStore is refused, never written through).
func (s *Store) write(p string, data []byte) error {
	return safefile.WriteAtomic(filepath.Dir(s.dir), p, data)
}

// checkDir checks that checkpoints/ is still a real directory of ours
// before files are renamed in it.
func (s *Store) checkDir() error { return safefile.MkdirAll(filepath.Dir(s.dir), s.dir) }

func (s *Store) path(agent, task string) string {
	return filepath.Join(s.dir, agent+"-"+task+".json")
}

// Save writes cp as the latest checkpoint of its agent and task, and keeps
// it in the history. The record is made durable once, as its history file
// (written, synced, renamed, its directory synced): when that fails, cp is
// not saved and does not count. The rest is placed without a sync — the
// version it replaces linked into backups/ (the last KeepBackups kept),
// the latest file renamed into place, the index and `latest` rewritten —
// since Load restores a torn latest file from the history and NewStore
// rebuilds the index from its files. Two fsyncs a record, where every file
// synced took ten.
func (s *Store) Save(cp *protocol.Checkpoint) error {
	if s.run != "" {
		cp.RunID = s.run
	}
	cp.Version = protocol.RecordVersion // written in today's format, whatever it was read as
	if err := s.sealAs(cp, SealRecord); err != nil {
		return err
	}
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	data = append(data, '\n')
	p := s.path(cp.Agent, cp.TaskID)
	if err := s.faults.check(p); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if s.hist == nil {
		return s.write(p, data)
	}
	if err := s.hist.keep(cp, data); err != nil {
		return err
	}
	if old, err := safefile.ReadFile(p); err == nil && json.Valid(old) {
		if err := s.backup(cp.Agent, cp.TaskID, p, old); err != nil {
			s.log.Warn("checkpoint not backed up (the history holds it)", "file", p, "error", err)
		}
	}
	if err := safefile.WriteDerived(filepath.Dir(s.dir), p, data); err != nil {
		// Kept in the history: it counts, and Latest finds it there.
		s.log.Error("latest checkpoint file not written (the history holds the record)", "file", p, "error", err)
	}
	if err := s.hist.add(cp); err != nil {
		s.log.Error("checkpoint index not written", "checkpoint_id", cp.CheckpointID, "error", err)
	}
	return nil
}

// backup keeps the version of p about to be replaced (its bytes old) in
// backups/: a hard link to it, as the file is replaced by rename and never
// changed in place; a copy where the file system has no links.
func (s *Store) backup(agent, task, p string, old []byte) error {
	stamp := s.now().UTC().Format("20060102T150405.000000000Z")
	name := filepath.Join(s.dir, "backups", agent+"-"+task+"_"+stamp+".json")
	if err := safefile.MkdirAll(filepath.Dir(s.dir), filepath.Dir(name)); err != nil {
		return fmt.Errorf("back up checkpoint: %w", err)
	}
	if err := os.Link(p, name); err != nil {
		if err := safefile.WriteDerived(filepath.Dir(s.dir), name, old); err != nil {
			return fmt.Errorf("back up checkpoint: %w", err)
		}
	}
	backups, err := s.backups(agent, task)
	if err != nil {
		return err
	}
	for len(backups) > KeepBackups {
		os.Remove(backups[0])
		backups = backups[1:]
	}
	return nil
}

// backups lists the backups of agent-task, oldest first (the stamp sorts).
func (s *Store) backups(agent, task string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(s.dir, "backups", agent+"-"+task+"_*.json"))
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	sort.Strings(all)
	return all, nil
}

// Load returns the latest checkpoint of agent on task, or (nil, nil) when
// there is none, or none of warden's (a record that is not is reported
// through OnUntrusted and never returned). A file that does not parse is
// restored from the newest intact copy (restore.go).
func (s *Store) Load(agent, task string) (*protocol.Checkpoint, error) {
	cp, _, err := s.loadFile(s.path(agent, task))
	return cp, err
}

// loadFile reads the record in p, and how far it is trusted; a record
// that is not warden's is (nil, untrusted, nil).
func (s *Store) loadFile(p string) (*protocol.Checkpoint, trust, error) {
	data, err := safefile.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, untrusted, nil
	}
	if err != nil {
		return nil, untrusted, fmt.Errorf("read checkpoint: %w", err)
	}
	var cp protocol.Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		c, err := s.restore(p)
		if c == nil || err != nil {
			return nil, untrusted, err
		}
		return c, s.trustOf(p, c), nil // a copy restore chose among trusted ones
	}
	tr := s.trustOf(p, &cp)
	if tr == untrusted {
		return nil, untrusted, nil
	}
	return &cp, tr, nil
}

// Archive moves the latest checkpoint of a completed task to
// {agent}-{task}-complete.json. A sealing store (SetKey) archives only a
// record of its own, sealed anew as a completion (SealComplete), written
// durably before the latest file goes: the one proof, on carrying the run
// on, that the task is complete.
func (s *Store) Archive(agent, task string) error {
	p := s.path(agent, task)
	dst := strings.TrimSuffix(p, ".json") + "-complete.json"
	if err := s.checkDir(); err != nil {
		return err
	}
	if s.sealer != nil {
		cp, tr, err := s.loadFile(p)
		switch {
		case err != nil:
			return fmt.Errorf("archive checkpoint: %w", err)
		case cp == nil:
			return fmt.Errorf("archive checkpoint: %s holds no record of warden's", filepath.Base(p))
		case tr != sealedRecord:
			return fmt.Errorf("archive checkpoint: %s is not a record warden sealed", filepath.Base(p))
		}
		if err := s.sealAs(cp, SealComplete); err != nil {
			return err
		}
		data, err := json.MarshalIndent(cp, "", "  ")
		if err != nil {
			return fmt.Errorf("encode checkpoint: %w", err)
		}
		if err := safefile.WriteAtomic(filepath.Dir(s.dir), dst, append(data, '\n')); err != nil {
			return fmt.Errorf("archive checkpoint: %w", err)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("archive checkpoint: %w", err)
		}
		return atomicfile.SyncDir(s.dir)
	}
	if err := os.Rename(p, dst); err != nil {
		return fmt.Errorf("archive checkpoint: %w", err)
	}
	return atomicfile.SyncDir(s.dir)
}

// NoteCommit records in the latest checkpoint of agent on task — when it is
// still the record id — the commit warden made of its work (no backup, no
// history entry: the same record, completed).
func (s *Store) NoteCommit(agent, task, id, commit string) error {
	cp, err := s.Load(agent, task)
	if err != nil || cp == nil || cp.CheckpointID != id {
		return err
	}
	if cp.Git == nil {
		cp.Git = &protocol.Git{}
	}
	cp.Git.Commit = commit
	if cp.Mac != "" {
		if err := s.sealAs(cp, SealRecord); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	return s.write(s.path(agent, task), append(data, '\n'))
}

// ArchiveCrashed moves the latest checkpoint of a failed agent's task to
// {agent}-{task}_crashed_{UTC stamp}.json: the task goes to another agent,
// whose first session still resumes from it (Latest finds it).
func (s *Store) ArchiveCrashed(agent, task string) error {
	p := s.path(agent, task)
	dst := filepath.Join(s.dir, agent+"-"+task+"_crashed_"+s.now().UTC().Format("20060102T150405Z")+".json")
	if err := s.checkDir(); err != nil {
		return err
	}
	if err := os.Rename(p, dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("archive checkpoint of a failed agent: %w", err)
	}
	return atomicfile.SyncDir(s.dir)
}

// ArchiveOpen moves every open latest checkpoint (not archived as complete,
// crashed or aborted) to {agent}-{task}_aborted_{UTC stamp}.json: a fresh
// run starts its tasks over, with records of its own. It returns how many.
func (s *Store) ArchiveOpen() (int, error) {
	if err := s.checkDir(); err != nil {
		return 0, err
	}
	names, err := filepath.Glob(filepath.Join(s.dir, "*.json"))
	if err != nil {
		return 0, fmt.Errorf("list checkpoints: %w", err)
	}
	stamp := s.now().UTC().Format("20060102T150405Z")
	n := 0
	for _, p := range names {
		base := strings.TrimSuffix(filepath.Base(p), ".json")
		if base == "index" || strings.HasSuffix(base, "-complete") || strings.Contains(base, "_crashed_") || strings.Contains(base, "_aborted_") {
			continue
		}
		if err := os.Rename(p, filepath.Join(s.dir, base+"_aborted_"+stamp+".json")); err != nil {
			return n, fmt.Errorf("archive checkpoint of an earlier run: %w", err)
		}
		n++
	}
	return n, atomicfile.SyncDir(s.dir)
}

// All returns the latest checkpoint of every agent and task, including
// archived ones, keyed by file name; files that do not parse are skipped,
// and so are records that are not warden's (OnUntrusted).
func (s *Store) All() (map[string]*protocol.Checkpoint, error) {
	all, err := s.allOf("")
	out := make(map[string]*protocol.Checkpoint, len(all))
	for name, r := range all {
		out[name] = r.cp
	}
	return out, err
}

// read is a record read from a file, with how far it is trusted.
type read struct {
	cp *protocol.Checkpoint
	tr trust
}

// allOf is All, of the files whose name may hold a record of task ("":
// every file): warden names them {agent}-{task}…, so the others are not
// read (a session's start asks for one task's newest, in a store of every
// agent's and task's).
func (s *Store) allOf(task string) (map[string]read, error) {
	names, err := filepath.Glob(filepath.Join(s.dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	out := map[string]read{}
	for _, n := range names {
		if filepath.Base(n) == "index.json" {
			continue // the history's index, not a checkpoint
		}
		if task != "" && !strings.Contains(filepath.Base(n), "-"+task) {
			continue
		}
		if cp, tr, err := s.loadFile(n); err == nil && cp != nil {
			out[filepath.Base(n)] = read{cp, tr}
		}
	}
	return out, nil
}

// Latest returns the newest open checkpoint of task in run (not archived
// as complete, nor put aside as _aborted_; a failed agent's _crashed_ one
// counts, its task taken over), whichever agent wrote it, updated at or
// after since; or nil. Records of other runs are never a task's state.
func (s *Store) Latest(task, run string, since time.Time) *protocol.Checkpoint {
	cp, _ := s.LatestFile(task, run, since)
	return cp
}

// LatestFile is Latest, with the name of the file the record is in.
func (s *Store) LatestFile(task, run string, since time.Time) (*protocol.Checkpoint, string) {
	all, err := s.allOf(task)
	if err != nil {
		return nil, ""
	}
	var best *protocol.Checkpoint
	file := ""
	for name, r := range all {
		cp := r.cp
		if cp.TaskID != task || cp.RunID != run || run == "" || strings.HasSuffix(name, "-complete.json") ||
			strings.Contains(name, "_aborted_") || cp.UpdatedAt.Before(since) || r.tr == sealedComplete {
			continue
		}
		if best == nil || cp.UpdatedAt.After(best.UpdatedAt) {
			best, file = cp, name
		}
	}
	// A record the history holds and no file does any more (a latest file
	// deleted, or put aside as lost) is still the run's newest.
	if cp, rel := s.hist.newest(task, run, since); cp != nil && (best == nil || cp.UpdatedAt.After(best.UpdatedAt)) {
		best, file = cp, rel
	}
	return best, file
}

// CompletedTasks returns the ids of the tasks that run completed: those
// whose newest record of that run is the one archived when the task
// completed. An archive of another run never completes a task, nor does
// one that a newer record of the run superseded (the task was reopened by
// --resume --from). A sealing store takes only warden's own archive, sealed
// as a completion (SealComplete), whatever its file is named: a record
// that is not warden's is not read at all, and a record of warden's copied
// to an archive's name is a record, no completion.
func (s *Store) CompletedTasks(run string) (map[string]bool, error) {
	all, err := s.allOf("")
	if err != nil {
		return nil, err
	}
	type newest struct {
		at       time.Time
		complete bool
	}
	by := map[string]newest{}
	for name, r := range all {
		cp := r.cp
		if run == "" || cp.RunID != run || strings.Contains(name, "_aborted_") {
			continue
		}
		n, seen := by[cp.TaskID]
		complete := strings.HasSuffix(name, "-complete.json")
		if s.sealer != nil {
			complete = r.tr == sealedComplete
		}
		if !seen || cp.UpdatedAt.After(n.at) || (cp.UpdatedAt.Equal(n.at) && complete) {
			by[cp.TaskID] = newest{at: cp.UpdatedAt, complete: complete}
		}
	}
	done := map[string]bool{}
	for task, n := range by {
		if n.complete {
			done[task] = true
		}
	}
	return done, nil
}
