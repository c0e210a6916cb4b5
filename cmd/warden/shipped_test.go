//go:build !e2e

package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/wardenhq/warden/"

// moduleDeps lists the packages of this module pkg is built from, itself
// included (go list -deps: its _test files left out).
func moduleDeps(t *testing.T, pkg string) []string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goBin = p
	}
	out, err := exec.Command(goBin, "list", "-deps", module+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	var deps []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module) {
			deps = append(deps, strings.TrimPrefix(p, module))
		}
	}
	return deps
}

// What ships is apart from the test rigs: nothing warden is built from is
// under testrig/ (the fake agent, the fake provider, the real-CLI slots,
// the leftover checks are for tests only).
func TestWardenIsBuiltWithoutTestRigs(t *testing.T) {
	deps := moduleDeps(t, "cmd/warden")
	if !slices.Contains(deps, "supervisor") || !slices.Contains(deps, "runner") {
		t.Fatalf("go list -deps ./cmd/warden lists no supervisor or runner: the test lists the wrong thing\n%s", strings.Join(deps, "\n"))
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "testrig/") {
			t.Errorf("warden is built from the test rig %s", p)
		}
	}
}

// protocol (with protocol/profile) and runner import only leaves: the
// shared utilities of internal/ and protocol itself, nothing of the team
// (supervisor/...), the handoff, the commands or the test rigs; their tests
// may.
func TestProtocolAndRunnerImportOnlyLeaves(t *testing.T) {
	for _, pkg := range []string{"protocol", "protocol/profile", "runner"} {
		for _, p := range moduleDeps(t, pkg) {
			if p != pkg && p != "protocol" && !strings.HasPrefix(p, "internal/") {
				t.Errorf("%s imports %s (go list -deps ./%s)", pkg, p, pkg)
			}
		}
	}
}
