package land

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/supervisor/queue"
)

// Wait is a task that did not land, and why.
type Wait struct {
	Task string
	Why  string
}

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
		case t.Branch == "":
		case t.State != queue.Complete:
			waits = append(waits, Wait{t.ID, fmt.Sprintf("not complete (%s)", t.State)})
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
				waits = append(waits, Wait{t.ID, "blocked_by " + gone + ", which does not land"})
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
		waits = append(waits, Wait{id, "its blocked_by make a cycle (" + strings.Join(cycle, ", ") + ")"})
	}
	return ready, waits
}
