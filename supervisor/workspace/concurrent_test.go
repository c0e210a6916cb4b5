//go:build !e2e

package workspace

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Tasks dispatched at once each get their worktree: git's `worktree add`
// reads every other worktree's admin files, and one being made beside it
// failed it ("failed to read .git/worktrees/T2/commondir: Success", in a
// fresh clone's end-to-end run with two tasks dispatched in the same
// millisecond). Eight at once, three times over.
func TestWorktreesMadeAtOnceAllSucceed(t *testing.T) {
	for round := range 3 {
		root := newRepo(t)
		r := find(t, driver(t), root)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			task := fmt.Sprintf("T%d", i+1)
			path := wtPath(t, fmt.Sprintf("r%d-%s", round, task))
			wg.Go(func() {
				if _, err := r.Prepare(context.Background(), path, "warden/team/"+task, []string{"main"}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
}
