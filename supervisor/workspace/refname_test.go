//go:build !e2e

package workspace

import (
	"os/exec"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
)

// RefComponentProblem agrees with git check-ref-format --branch on every
// id a team file could hold ([A-Za-z0-9._-]+) and a few it cannot; a '/'
// (fine in a branch) is refused: the id is one component, and one
// directory.
func TestRefComponentProblemAgreesWithGit(t *testing.T) {
	defer proctest.AssertNone(t)
	for _, id := range []string{"T1", "T..1", "x.lock", ".hidden", "T1.", "a.b", "a-b_c", "-x", "x.lock.y",
		"...", "a.lock.lock", "lock", ".lock", "T_1.2", "a..", "@", "a@{b", "a b", "a~1", "a:b", "a*", "a[", "a\\b"} {
		err := exec.Command("git", "check-ref-format", "--branch", "warden/team/"+id).Run()
		gitOK, ours := err == nil, RefComponentProblem(id)
		if gitOK != (ours == "") {
			t.Errorf("%q: git check-ref-format ok=%v, RefComponentProblem = %q", id, gitOK, ours)
		}
	}
	if RefComponentProblem("a/b") == "" {
		t.Error("a/b is not one component")
	}
}
