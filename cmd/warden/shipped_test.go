//go:build !e2e

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/testrig/godeps"
)

// What ships is apart from the test rigs: nothing warden is built from is
// under testrig/ (the fake agent, the fake provider, the real-CLI slots,
// the leftover checks are for tests only).
func TestWardenIsBuiltWithoutTestRigs(t *testing.T) {
	deps := godeps.Of(t, "cmd/warden")
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
		for _, p := range godeps.Of(t, pkg) {
			if p != pkg && p != "protocol" && !strings.HasPrefix(p, "internal/") {
				t.Errorf("%s imports %s (go list -deps ./%s)", pkg, p, pkg)
			}
		}
	}
}
