//go:build !e2e

package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/testrig/teamtest"
)

// The first run of a state dir says what it is, as every other run's first
// line does (NEW RUN, CARRYING ON, FINISHED): the docs promise a NEW RUN
// line, and a first-ever run printed none.
func TestTheFirstRunSaysItIsANewRun(t *testing.T) {
	cfg := teamtest.WriteTeam(t, "[[task]]\nid = \"T1\"\nprompt = \"One.\"\n", teamtest.Agent{Name: "w1", Mode: "worker"})
	out := &teamtest.Buffer{}
	team, err := New(hclog.NewNullLogger(), cfg, clock.NewFake(time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)), out)
	if err != nil {
		t.Fatal(err)
	}
	defer team.Close()
	b, err := team.Begin(StartAuto)
	if err != nil || b.Finished {
		t.Fatalf("begin: %+v, %v", b, err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if want := "NEW RUN: " + b.RunID + " (the first in " + cfg.StateDir + ")"; !strings.HasPrefix(first, want) {
		t.Errorf("first line %q, want %q", first, want)
	}
}
