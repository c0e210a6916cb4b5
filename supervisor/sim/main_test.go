//go:build !e2e

package sim

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain gives the nights' many short-lived allocations (every state
// file written and read back) more room between collections: the
// simulation is a thousand small teams, not one long-lived one.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
