//go:build !e2e

package agent

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
)

// Every team name gives task branches git takes: Branch makes the name a
// valid ref component, checked by git check-ref-format --branch.
func TestBranchIsValidForAnyTeamName(t *testing.T) {
	for _, name := range []string{"nightly", "a..b", "x.lock", "x.lock.lock", ".team.", "my team!", "-", "", "..", "a/b", "ü", "x.lock-"} {
		w := NewWorkspaces(nil, &config.Team{Name: name}, state.NewLayout(t.TempDir()), nil, nil)
		b := w.Branch("T1")
		if out, err := exec.Command("git", "check-ref-format", "--branch", b).CombinedOutput(); err != nil {
			t.Errorf("team %q: branch %q refused by git: %s", name, b, out)
		}
		if !strings.HasPrefix(b, "warden/") || strings.Count(b, "/") != 2 {
			t.Errorf("team %q: branch %q", name, b)
		}
	}
}
