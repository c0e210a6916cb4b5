package webpage

import (
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// An agent's card shows its last record's Completed and Remaining whenever
// the state dir holds one: ps names only the records this supervisor
// received, so a run carried on (before its agent's first checkpoint) and
// the page the morning after (state.json holds no records) would say "-"
// under both. The page fills them from the records on disk: for an agent
// ps gives none of, the newest record of the run it wrote — of its task,
// when it has one.

// records is the state dir's records as last read, read again only when
// checkpoints/ changed (a record is renamed into place).
type records struct {
	mu  sync.Mutex
	mod time.Time
	all map[string]*protocol.Checkpoint
}

// of returns the records in the state dir at root.
func (r *records) of(root string) map[string]*protocol.Checkpoint {
	dir := state.NewLayout(root).Checkpoints()
	fi, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.all == nil || !fi.ModTime().Equal(r.mod) {
		all, err := state.ReadCheckpoints(hclog.NewNullLogger(), root)
		if err != nil {
			return nil
		}
		r.all, r.mod = all, fi.ModTime()
	}
	return r.all
}

// fillRecords gives each agent of ps without a checkpoint its newest
// record of the run from the state dir, when there is one.
func (s *Server) fillRecords(ps *control.PS) {
	if s.opts.StateDir == "" || ps == nil {
		return
	}
	var all map[string]*protocol.Checkpoint
	for i := range ps.Agents {
		a := &ps.Agents[i]
		if a.Checkpoint != nil {
			continue
		}
		if all == nil {
			if all = s.recs.of(s.opts.StateDir); all == nil {
				return
			}
		}
		if cp := newestOf(all, a.Name, a.Task, ps.RunID); cp != nil {
			a.Checkpoint = &control.Checkpoint{ID: cp.CheckpointID, Task: cp.TaskID, Status: cp.Status,
				Progress: cp.ProgressPercent, Completed: cp.Completed, Remaining: cp.Remaining, Blockers: cp.Blockers, At: cp.UpdatedAt}
		}
	}
}

// newestOf is agent's newest record of run (any run when run is ""), of
// task when task is not "".
func newestOf(all map[string]*protocol.Checkpoint, agent, task, run string) *protocol.Checkpoint {
	var best *protocol.Checkpoint
	for _, cp := range all {
		if cp.Agent != agent || (run != "" && cp.RunID != run) || (task != "" && cp.TaskID != task) {
			continue
		}
		if best == nil || cp.UpdatedAt.After(best.UpdatedAt) {
			best = cp
		}
	}
	return best
}
