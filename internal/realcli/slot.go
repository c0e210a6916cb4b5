package realcli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Slots is how many tests may run real CLIs at once on this machine, across
// every test binary `go test -tags e2e ./...` runs side by side: $WARDEN_REALCLI_SLOTS,
// or one more than the machine has cores (at least 3). A real CLI's start
// is seconds of Node.js on a core; with four packages' tests starting them
// at once on two cores, their first screens took longer than any fair wait
// and the tests failed for want of a core, not for what they check.
func Slots() int {
	if n, err := strconv.Atoi(os.Getenv("WARDEN_REALCLI_SLOTS")); err == nil && n > 0 {
		return n
	}
	return max(3, runtime.NumCPU()+1)
}

// TB is what Hold needs of a test (testing.TB without importing testing
// into the tools that seed CLIs).
type TB interface {
	Helper()
	Cleanup(func())
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

var (
	heldMu sync.Mutex
	held   = map[TB]bool{}
)

// Hold takes one of the machine's Slots for tb until tb ends, waiting for
// one to free; a tb that holds one already takes no second. The slots are
// files locked with flock(2) in a directory of the user's own under the
// temp dir, so a test binary that dies frees its slot with it.
func Hold(tb TB) {
	tb.Helper()
	heldMu.Lock()
	if held[tb] {
		heldMu.Unlock()
		return
	}
	held[tb] = true
	heldMu.Unlock()
	f, waited, err := take(Slots())
	if err != nil {
		tb.Fatalf("realcli: a slot to run a real CLI: %v", err)
	}
	if waited > time.Second {
		tb.Logf("realcli: waited %v for one of %d slots to run a real CLI", waited.Round(time.Second), Slots())
	}
	tb.Cleanup(func() {
		f.Close() // closing the file drops its lock
		heldMu.Lock()
		delete(held, tb)
		heldMu.Unlock()
	})
}

// take locks the first free slot file of n, polling until one is.
func take(n int) (*os.File, time.Duration, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("warden-realcli-slots-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, 0, err
	}
	start := time.Now()
	for {
		for i := range n {
			f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("slot-%d", i)), os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				return nil, 0, err
			}
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
				return f, time.Since(start), nil
			}
			f.Close()
		}
		time.Sleep(200 * time.Millisecond)
	}
}
