package state

import "sync/atomic"

// faults is a Store's seam for a failing disk: a function that returns the
// error a record write gets (nil: the write goes ahead).
type faults struct {
	fail atomic.Pointer[func(path string) error]
}

// FailWrites makes Save fail, before it writes the latest checkpoint file,
// with what fail returns for that file's path — a full disk
// (syscall.ENOSPC) in tests, which cannot fill a real one. nil ends it.
func (s *Store) FailWrites(fail func(path string) error) {
	if fail == nil {
		s.faults.fail.Store(nil)
		return
	}
	s.faults.fail.Store(&fail)
}

// check returns the injected error for a write to path, if any.
func (f *faults) check(path string) error {
	if fn := f.fail.Load(); fn != nil {
		return (*fn)(path)
	}
	return nil
}
