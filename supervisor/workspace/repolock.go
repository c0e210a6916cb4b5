package workspace

import "sync"

// repoLocks makes the changes to a repository's worktrees one at a time,
// by the directory its worktrees share: git's `worktree add` reads every
// other worktree's admin files, and one being made beside it fails it
// ("failed to read .git/worktrees/T2/commondir: Success" — two tasks
// dispatched in the same millisecond; TestWorktreesMadeAtOnceAllSucceed).
// Within one warden only: two wardens on one repository are not ordered.
var repoLocks sync.Map // common dir → *sync.Mutex

// lock holds the repository's worktree lock until the returned func.
func (r Repo) lock() func() {
	m, _ := repoLocks.LoadOrStore(r.common, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}
