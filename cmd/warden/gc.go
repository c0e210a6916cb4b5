package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is warden's GOGC when the environment sets none. Go's default,
// 100, lets the heap grow to twice what is live before it collects; most of
// what warden keeps live is long-lived (each TUI agent's screen grid, 1.1 MB
// at 200×50, for the whole session), so that headroom is memory spent on
// nothing but letting garbage wait. Prometheus lowered its default for the
// same reason (prometheus/prometheus#2528, #14288). With 50 TUI agents this
// takes warden from 2.8 to 2.2 MB per agent; the collections it adds cost no
// measurable CPU (docs/performance.md). GOGC in the environment still wins.
const gcPercent = 50

// tuneGC sets gcPercent unless GOGC is set.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
