//go:build e2e

package runner

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
)

// A link planted at the log's directory (logs/ replaced while the team
// runs) is never followed: Start refuses, and nothing is written outside.
func TestStartRefusesALinkedLogDir(t *testing.T) {
	defer proctest.AssertNone(t)
	state, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(state, "logs")); err != nil {
		t.Fatal(err)
	}
	cfg := fakeConfig("lines:1")
	cfg.LogPath = filepath.Join(state, "logs", "agent.log")
	p, err := Start(testLogger, cfg)
	if err == nil {
		p.Wait()
		t.Fatal("Start with logs/ a link: no error")
	}
	if !errors.Is(err, syscall.ELOOP) {
		t.Errorf("error %q does not say logs/ is a symbolic link", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written outside: %v", ents)
	}
}
