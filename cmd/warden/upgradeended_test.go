//go:build !e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// A warden that exited after an upgrade's exec because the run then ended
// (the new binary carried it on as the upgrade, and its tasks completed)
// is an upgrade that worked: warden upgrade says the agents taken back and
// how the run ended. One whose state.json shows no such carry-on, or a run
// not ended, is a new binary that failed.
func TestAnUpgradeWhoseRunThenEndedWorked(t *testing.T) {
	dir := t.TempDir()
	write := func(s state.Snapshot) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "state.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	up := &control.Upgrade{Pid: 4242}
	upgraded := state.CarryOn{After: "upgraded", Upgraded: &state.Upgraded{From: "a", To: "b"}, TakenBack: []string{"w1"}}
	write(state.Snapshot{Ended: "finished", CarriedOn: []state.CarryOn{{After: "stopped"}, upgraded}})
	taken, ended := endedAfterUpgrade(dir, up, 1)
	if !slices.Equal(taken, []string{"w1"}) || !strings.Contains(ended, "the run has ended since (finished)") {
		t.Errorf("a run finished after its upgrade: taken %v, %q", taken, ended)
	}
	for name, s := range map[string]state.Snapshot{
		"no carry-on since":     {Ended: "finished", CarriedOn: []state.CarryOn{{After: "stopped"}}},
		"not as an upgrade":     {Ended: "finished", CarriedOn: []state.CarryOn{{After: "stopped"}, {After: "died"}}},
		"the run not ended":     {Running: true, CarriedOn: []state.CarryOn{{After: "stopped"}, upgraded}},
		"died: no way it ended": {CarriedOn: []state.CarryOn{{After: "stopped"}, upgraded}},
	} {
		write(s)
		if _, ended := endedAfterUpgrade(dir, up, 1); ended != "" {
			t.Errorf("%s: taken for an upgrade that worked: %q", name, ended)
		}
	}
}
