//go:build race && !e2e

package sim

// raceDetector: the race detector slows the core about fivefold; a run
// with it does fewer seeds (seedsDefault).
const raceDetector = true
