package land

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/supervisor/queue"
)

// Wait is a task that did not land, and why; the land's Stop says also
// where it stopped, for a land task to start there (hand.go).
type Wait struct {
	Task string `json:"task"`
	Why  string `json:"why"`
	// Kind is what stopped the land: KindConflict, KindVerify, KindMerge.
	Kind string `json:"kind,omitempty"`
	// Paths are the conflicting paths (a conflict).
	Paths []string `json:"paths,omitempty"`
	// At is the integration branch's head where the land stopped, and
	// Merging the branches that, merged onto it in order, give what
	// stopped it: a conflict, or a tree land_verify fails on.
	At      string   `json:"at,omitempty"`
	Merging []string `json:"merging,omitempty"`
}

// What stops a land.
const (
	KindConflict = "conflict" // a merge conflicts
	KindVerify   = "verify"   // land_verify fails
	KindMerge    = "merge"    // git could not make a merge (a driver turned off)
)

// order returns the tasks to land, the complete ones with a branch, in
// dependency order: a task after every task of its blocked_by, and among
// the tasks free to go the one first in the team file's order. The other
// tasks with a branch wait (not complete; or a blocked_by that will not
// land). A cycle, which validate refuses, lands none of its tasks.
func order(tasks []queue.Status) (ready []queue.Status, waits []Wait) {
	known := map[string]queue.Status{}
	for _, t := range tasks {
		known[t.ID] = t
	}
	lands := map[string]bool{}
	for _, t := range tasks {
		switch {
		case t.Branch == "" || t.Lands != "": // a land task lands through its resolution
		case t.State != queue.Complete:
			waits = append(waits, Wait{Task: t.ID, Why: fmt.Sprintf("not complete (%s)", t.State)})
		default:
			lands[t.ID] = true
		}
	}
	placed := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for _, t := range tasks {
			if !lands[t.ID] || placed[t.ID] {
				continue
			}
			free, gone := true, ""
			for _, b := range t.BlockedBy {
				_, isTask := known[b]
				switch {
				case !isTask || placed[b]:
				case lands[b]:
					free = false
				default:
					gone = b
				}
			}
			if gone != "" {
				lands[t.ID] = false
				waits = append(waits, Wait{Task: t.ID, Why: "blocked_by " + gone + ", which does not land"})
				progress = true
				break
			}
			if free {
				placed[t.ID] = true
				ready = append(ready, t)
				progress = true
				break // the first in file order whose blockers are placed
			}
		}
	}
	var cycle []string
	for _, t := range tasks {
		if lands[t.ID] && !placed[t.ID] {
			cycle = append(cycle, t.ID)
		}
	}
	for _, id := range cycle {
		waits = append(waits, Wait{Task: id, Why: "its blocked_by make a cycle (" + strings.Join(cycle, ", ") + ")"})
	}
	return ready, waits
}
