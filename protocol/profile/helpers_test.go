package profile

import (
	"os"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeagent"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

func testLogger(t testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Warn, Output: os.Stderr})
}
