//go:build e2e

package queue

import (
	"os"
	"strconv"
	"testing"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// TestMain marks this process so that internal/proctest finds every process
// a verify command leaves behind (they inherit the environment).
func TestMain(m *testing.M) {
	os.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid()))
	os.Exit(m.Run())
}
