//go:build e2e

package queue

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

func TestVerifyPassesAndFails(t *testing.T) {
	defer proctest.AssertNone(t)
	if v := Verify(context.Background(), []string{"true"}, t.TempDir()); !v.Passed || v.Summary != "passed" {
		t.Errorf("true: %+v", v)
	}
	v := Verify(context.Background(), []string{"sh", "-c", "echo broken; exit 3"}, t.TempDir())
	if v.Passed || v.Summary != "exit code 3" || !strings.Contains(v.Output, "broken") {
		t.Errorf("exit 3: %+v", v)
	}
	if f := v.Feedback("T1", []string{"make"}); !strings.Contains(f, "VERIFY FAILED for T1") || !strings.Contains(f, "broken") {
		t.Errorf("feedback %q", f)
	}
}

// A verify that leaves a child holding its output (a dev server) returns at
// once, and the child is gone: it can never hold warden.
func TestVerifyLeavingAChildDoesNotHang(t *testing.T) {
	defer proctest.AssertNone(t)
	start := time.Now()
	v := Verify(context.Background(), []string{"sh", "-c", "sleep 45 & exit 1"}, t.TempDir())
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("verify took %s", took)
	}
	if v.Passed || v.Summary != "exit code 1" {
		t.Errorf("result %+v", v)
	}
}

// A stopping team ends a running verify at once, with its whole group.
func TestVerifyStoppedWithTheTeam(t *testing.T) {
	defer proctest.AssertNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	v := Verify(ctx, []string{"sh", "-c", "sleep 60 & sleep 60"}, t.TempDir())
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("verify took %s after the team stopped", took)
	}
	if v.Passed || !strings.HasPrefix(v.Summary, "stopped") {
		t.Errorf("result %+v", v)
	}
}
