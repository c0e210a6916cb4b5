//go:build e2e

package queue

import (
	"os"
	"strconv"
	"testing"

	"github.com/wardenhq/warden/testrig/fakeagent"
)

// TestMain marks this process so that testrig/proctest finds every process
// a verify command leaves behind (they inherit the environment).
func TestMain(m *testing.M) {
	os.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid()))
	os.Exit(m.Run())
}
