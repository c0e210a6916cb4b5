//go:build e2e

package asciicast

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// TestMain lets the test binary be a fake agent (the relay benchmark).
func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}
