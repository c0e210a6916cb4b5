//go:build e2e

package hookbus

import (
	"os"
	"testing"
)

// envTestHook makes the test binary run as `warden hook` (the e2e tests
// give the CLIs this binary as WardenBin, and the hooks inherit the env).
const envTestHook = "WARDEN_HOOKBUS_TEST_HOOK"

func TestMain(m *testing.M) {
	if os.Getenv(envTestHook) == "1" && len(os.Args) > 1 && os.Args[1] == "hook" {
		_ = RunHook(os.Args[2:], os.Stdin, os.Stdout, EnvFrom(os.Getenv))
		os.Exit(0)
	}
	os.Exit(m.Run())
}
