//go:build !race && !e2e

package sim

const raceDetector = false
