package sim

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/state"
)

// deadPid stands for a warden that died: no process has it (above pid_max).
const deadPid = pidBase - 1

// crash is kill -9 of warden at this idle moment: what is on disk now is
// what a dead warden leaves (every write of warden's is whole or not at
// all), its agents die with it. The warden in the bubble cannot be killed,
// so the state dir and the repository are copied now, that warden is made
// to end at once (its agents killed), and the copy is put back in place:
// nothing it did after this moment happened. state.json keeps naming it as
// running, with a pid that no longer lives.
func (w *World) crash(op Op) {
	w.readEvents()
	saved, err := os.MkdirTemp(filepath.Dir(w.root), "warden-sim-crash-")
	if err != nil {
		w.fail("kill -9: %v", err)
		return
	}
	defer os.RemoveAll(saved)
	if err := copyTree(w.root, saved); err != nil {
		w.fail("kill -9: copying the state: %v", err)
		return
	}
	w.mu.Lock()
	evLen, evOffset := len(w.events), w.evOffset
	w.mu.Unlock()
	w.team.Force()
	<-w.done
	w.team.Close()
	w.setTeam(nil)
	if err := os.RemoveAll(w.root); err != nil {
		w.fail("kill -9: %v", err)
		return
	}
	if err := copyTree(saved, w.root); err != nil {
		w.fail("kill -9: restoring the state: %v", err)
		return
	}
	if err := setPid(w.cfg.StateDir, deadPid); err != nil {
		w.fail("kill -9: %v", err)
	}
	w.mu.Lock()
	w.events, w.evOffset = w.events[:evLen], evOffset
	w.checkedTo = min(w.checkedTo, evLen)
	w.mu.Unlock()
	w.snap = nil
	w.crashes++
	w.note("warden died (kill -9); its agents with it")
}

// runAgain begins warden again as op says: on its own (carrying the run
// on), --fresh, or --resume --from a record of the history.
func (w *World) runAgain(op Op) {
	how, from := supervisor.StartAuto, ""
	switch op.Agent {
	case "--fresh":
		how = supervisor.StartFresh
	case "--from":
		how = supervisor.StartReopen
		from = w.someRecord(op)
		if from == "" {
			how = supervisor.StartAuto
		}
	}
	err := w.begin(how, from)
	if errors.Is(err, supervisor.ErrNotATaskRecord) {
		// A review round's or a land task's record: refused before
		// anything starts, as it must be; the person then carries on.
		w.note("--from %s refused: %v", from, err)
		how, from = supervisor.StartAuto, ""
		err = w.begin(how, from)
	}
	if err != nil {
		w.fail("warden run %s: %v", op.Agent, err)
		return
	}
	if from != "" {
		w.note("resumes from record %s", from)
	}
}

// someRecord picks a record of the history for --from (by the op's time:
// the same one on a replay), or "".
func (w *World) someRecord(op Op) string {
	all, err := state.ReadHistory(w.cfg.StateDir, "")
	if err != nil || len(all) == 0 {
		return ""
	}
	r := rand.New(rand.NewPCG(uint64(w.seed), uint64(op.At)))
	return all[r.IntN(len(all))].ID
}

// secondWarden is `warden run` while one runs: the state dir's lock must
// refuse it. It reports whether the op is for a warden that is not there
// (false: done here).
func (w *World) secondWarden() bool {
	team, err := supervisor.New(w.log, w.cfg, clock.Real{}, &w.out)
	if !errors.Is(err, state.ErrLocked) {
		w.fail("two wardens on one state dir: a second one was not refused for the lock (%v)", err)
		if team != nil {
			team.Close()
		}
	}
	return false
}

// newLife resets what the checks know of the warden that ran before.
func (v *invariants) newLife() {
	v.stopping, v.stopAt, v.asks, v.stuck, v.resumeBy = false, time.Time{}, nil, time.Time{}, time.Time{}
	clear(v.parked)
	v.held = false // a run carried on acts on a budget reached at once
	clear(v.lastDisp)
}

// setPid rewrites state.json's pid (a warden that died).
func setPid(dir string, pid int) error {
	path := filepath.Join(dir, "state.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	m["pid"] = pid
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// copyTree copies the regular files, directories and links of src into
// dst, modes kept (sockets and the like are left out).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, info.Mode().Perm())
		}
		return nil
	})
}
