package hold

import (
	"context"
	"errors"
	"sync"

	"github.com/wardenhq/warden/runner"
)

// Pause parks the reader of every process attached through the holder
// (runner.Process.Pause): nothing more is read from their masters, and
// every byte read so far is handed to its session. What the agents write
// from now on stays in their terminals, for the holder to drain once this
// warden's connection ends, or for these readers after Resume. It returns
// the processes' pids by the holder's agent id.
func (h *Hold) Pause(ctx context.Context) (map[string]int, error) {
	h.mu.Lock()
	procs := make(map[string]*runner.Process, len(h.procs))
	for id, p := range h.procs {
		procs[id] = p
	}
	h.mu.Unlock()
	var mu sync.Mutex
	var wg sync.WaitGroup
	pids := map[string]int{}
	var errs []error
	for id, p := range procs { // at once: each waits for its agent's output to be quiet
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.Pause(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			pids[id] = p.Pid()
		}()
	}
	wg.Wait()
	return pids, errors.Join(errs...)
}

// Resume lets every paused reader read again (an upgrade that did not
// happen).
func (h *Hold) Resume() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.procs {
		p.Resume()
	}
}
