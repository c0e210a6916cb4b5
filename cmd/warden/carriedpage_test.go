//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// A supervisor killed at night and restarted (by the systemd unit's
// Restart=, a scheduler, a person): the restarted run says it was carried
// on, when, after what, and from which checkpoint each open task resumed —
// on the page (/api/ps and what Chromium shows), in state.json, and in
// `warden status` once the run has finished.
func TestThePageSaysTheRunWasCarriedOn(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=10")
	cmd, out := runWarden(t, "run", team)
	defer stopRun(cmd)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (30%)", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The carried-on run asks every 3 s (not 150 ms): its seven steps left
	// keep it, and its page, up for 20 s and more while Chromium starts.
	b, err := os.ReadFile(team)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(team, []byte(strings.Replace(string(b), `checkpoint_interval = "150ms"`, `checkpoint_interval = "3s"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}

	p := startPageRun(t, team, 0, nil)
	defer p.stop()
	code, body := p.get("/api/ps", true)
	var ps control.PS
	if code != 200 || json.Unmarshal([]byte(body), &ps) != nil {
		t.Fatalf("/api/ps: %d %s", code, body)
	}
	if len(ps.CarriedOn) != 1 || len(ps.CarriedOn[0].Resumed) != 1 {
		t.Fatalf("/api/ps carried_on = %+v, want one carry-on resuming T1", ps.CarriedOn)
	}
	c := ps.CarriedOn[0]
	if r := c.Resumed[0]; r.Task != "T1" || r.Agent != "w1" || r.Progress < 30 || r.CheckpointID == "" || r.Status != "implementing" {
		t.Errorf("resumed from %+v, want T1 from w1's checkpoint at 30%% or more", r)
	}
	if !regexp.MustCompile(`^its supervisor died; last update at \d{4}-\d\d-\d\d \d\d:\d\d$`).MatchString(c.After) {
		t.Errorf("carried on after %q, want the supervisor's death and its last update", c.After)
	}
	if age := time.Since(c.At); age < 0 || age > time.Minute {
		t.Errorf("carried on at %s, %s ago", c.At, age)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tab, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	asPhone(t, tab)
	navigate(t, tab, p.base+"/?token="+p.token)
	pollPage(t, tab, "the carry-on", `(() => { const c = document.getElementById('carried');
		return !c.hidden && /^Resumed .* after its supervisor died; last update at .*: T1 from w1's checkpoint at [3-9]\d% \(implementing, \d+[sm] ago\)$/.test(c.textContent) })()`, 10*time.Second)

	if err := p.cmd.Wait(); exitCode(err) != 0 {
		t.Fatalf("the carried-on run: exit %d\n%s", exitCode(err), p.out.dump())
	}
	snap, err := state.ReadSnapshot(filepath.Join(filepath.Dir(team), ".warden"))
	if err != nil || len(snap.CarriedOn) != 1 || snap.CarriedOn[0].Resumed[0].CheckpointID != c.Resumed[0].CheckpointID {
		t.Fatalf("state.json after the run: %+v %v, want the carry-on kept", snap, err)
	}
	status, errOut, code := wardenCmd("status", team)
	if code != 0 || !regexp.MustCompile(`(?m)^   resumed \d{4}-\d\d-\d\d \d\d:\d\d after its supervisor died; .*: T1 from w1's checkpoint at [3-9]\d% \(implementing\)$`).MatchString(status) {
		t.Errorf("warden status (exit %d) does not say the run was resumed:\n%s%s", code, status, errOut)
	}
}
