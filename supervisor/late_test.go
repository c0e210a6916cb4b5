//go:build e2e

package supervisor

import (
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// An answer whose optional lines (Blockers, Notes, Resume) come after a
// pause longer than the reader waits is one record, completed by the late
// lines: one checkpoint_received, one checkpoint_amended with the same
// checkpoint_id, and the saved record and its history entry carry them —
// for a plain program and for a TUI drawing on its screen.
func TestLateOptionalLinesCompleteTheRecord(t *testing.T) {
	for _, tc := range []struct{ name, mode, profile string }{
		{"plain", "lateblock:pause=1500ms", ""},
		{"tui", "lateblock:pause=1500ms:tui=1", "claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer proctest.AssertNone(t)
			cfg := writeTeam(t, `checkpoint_interval = "1m"
checkpoint_timeout = "3s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w", mode: tc.mode, profile: tc.profile})
			team, out, wait := startTeamCfg(t, cfg)
			waitFor(t, "the late lines", func() bool {
				return countEvents(eventsOf(t, cfg), event.CheckpointAmended, "w") == 1
			})
			time.Sleep(300 * time.Millisecond) // nothing more comes
			team.Stop(true)
			wait()
			evs := eventsOf(t, cfg)
			if n := countEvents(evs, event.CheckpointReceived, "w"); n != 1 {
				t.Fatalf("%d checkpoint_received, want the one answer\n%s", n, out.String())
			}
			var received, amended map[string]any
			for _, e := range evs {
				switch e["event"] {
				case event.CheckpointReceived:
					received = e
				case event.CheckpointAmended:
					amended = e
				}
			}
			if received["checkpoint_id"] == nil || amended["checkpoint_id"] != received["checkpoint_id"] {
				t.Errorf("amended %v, received %v: want the same checkpoint_id", amended["checkpoint_id"], received["checkpoint_id"])
			}
			cps, err := state.ReadCheckpoints(hclog.NewNullLogger(), cfg.StateDir)
			if err != nil {
				t.Fatal(err)
			}
			cp := cps["w-T1.json"]
			if cp == nil {
				t.Fatalf("no record of w on T1: %v", cps)
			}
			if !slices.Equal(cp.Blockers, []string{"the fixture server is down"}) || cp.Notes != "late lines matter" ||
				cp.ResumeInstructions != "run the tests first" || cp.CheckpointID != received["checkpoint_id"] ||
				cp.Phase != "testing" || cp.Extra["Confidence"] != "high" {
				t.Errorf("the saved record lacks the late lines: id %s blockers %q notes %q resume %q phase %q extra %v",
					cp.CheckpointID, cp.Blockers, cp.Notes, cp.ResumeInstructions, cp.Phase, cp.Extra)
			}
			hist, err := state.ReadHistory(cfg.StateDir, "T1")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, h := range hist {
				if h.ID == cp.CheckpointID {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d history entries for the one answer, want 1: %+v", n, hist)
			}
		})
	}
}
