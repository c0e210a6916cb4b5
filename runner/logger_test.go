package runner

import (
	"os"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// testLogger is shared by all tests: the reaper keeps the first logger it is
// given for the life of the process, so it must not be tied to one test.
var testLogger = hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Warn, Output: os.Stderr})

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
