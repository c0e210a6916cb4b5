//go:build !e2e

package face_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/testrig/godeps"
)

const module = godeps.Module

// The edges that show a session to people depend on its contracts (this
// leaf), never on the session, the agent or the team that run it: the
// control socket and the page build without them.
func TestEdgesDoNotImportTheSession(t *testing.T) {
	forbidden := []string{"supervisor/session", "supervisor/agent", "supervisor"}
	for _, edge := range []string{"supervisor/control", "supervisor/webpage"} {
		all := godeps.All(t, edge)
		if !slices.Contains(all, module+"supervisor/face") {
			t.Errorf("%s does not depend on supervisor/face: the test lists the wrong thing\n%s", edge, strings.Join(all, "\n"))
		}
		for _, f := range forbidden {
			if slices.Contains(all, module+f) {
				t.Errorf("%s depends on %s (go list -deps %s)", edge, f, edge)
			}
		}
	}
}

// The leaf imports nothing of warden's.
func TestFaceIsALeaf(t *testing.T) {
	for _, p := range godeps.All(t, "supervisor/face") {
		if strings.HasPrefix(p, module) && p != module+"supervisor/face" {
			t.Errorf("supervisor/face depends on %s", p)
		}
	}
}
