// Package godeps lists what a package of this module is built from, for
// the tests that hold the layout's arrows (docs/layout.md).
package godeps

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Module is this module's path, with its slash.
const Module = "github.com/wardenhq/warden/"

// All lists every package pkg (a path in the module, such as
// "cmd/warden") is built from, itself included: `go list -deps`, its
// _test files left out.
func All(t testing.TB, pkg string) []string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goBin = p
	}
	out, err := exec.Command(goBin, "list", "-deps", Module+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// Of lists the packages of this module pkg is built from, as paths in
// the module ("supervisor/state"), itself included.
func Of(t testing.TB, pkg string) []string {
	t.Helper()
	var deps []string
	for _, p := range All(t, pkg) {
		if rest, ok := strings.CutPrefix(p, Module); ok {
			deps = append(deps, rest)
		}
	}
	return deps
}
