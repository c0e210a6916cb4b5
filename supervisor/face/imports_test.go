//go:build !e2e

package face_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/wardenhq/warden/"

// deps lists every package pkg depends on, itself included (go list -deps).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goBin = p
	}
	out, err := exec.Command(goBin, "list", "-deps", module+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// The edges that show a session to people depend on its contracts (this
// leaf), never on the session, the agent or the team that run it: the
// control socket and the page build without them.
func TestEdgesDoNotImportTheSession(t *testing.T) {
	forbidden := []string{"supervisor/session", "supervisor/agent", "supervisor"}
	for _, edge := range []string{"supervisor/control", "supervisor/webpage"} {
		all := deps(t, edge)
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
	for _, p := range deps(t, "supervisor/face") {
		if strings.HasPrefix(p, module) && p != module+"supervisor/face" {
			t.Errorf("supervisor/face depends on %s", p)
		}
	}
}
