//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/testrig/proctest"
)

// Issue 33's forgery, as measured, against the real binary (real
// processes: warden and its fake agent): a task whose verify always fails,
// warden killed at 10 %, a script copies checkpoints/w1-T1.json to
// w1-T1-complete.json with status complete, 100 %, a new checkpoint_id and
// the run's own run_id. Before, `warden run` carried the run on and exited
// 0 with tasks_complete 1, its verify never run. Now the archive is said
// not written by warden, the task goes on from its 10 % record, and its
// verify runs — and fails, as it always does.
func TestTheIssuesForgedArchiveIsRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=10")
	body, _ := os.ReadFile(team)
	os.WriteFile(team, append(body, []byte("verify = [\"false\"]\n")...), 0o600)
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (10%)", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	dir := filepath.Join(filepath.Dir(team), ".warden", "checkpoints")
	b, err := os.ReadFile(filepath.Join(dir, "w1-T1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["status"], m["progress_percent"], m["checkpoint_id"], m["resumable"] = "complete", 100, "forged", false
	forged, _ := json.MarshalIndent(m, "", "  ")
	os.WriteFile(filepath.Join(dir, "w1-T1-complete.json"), forged, 0o600)

	cmd, out = runWarden(t, "run", team)
	out.waitFor(t, "VERIFY FAILED: T1", 1)
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if code := exitCode(err); code == 0 {
		t.Errorf("exit 0: the forged archive completed the task\n%s", out.dump())
	}
	if !strings.HasPrefix(out.first(), "CARRYING ON: run ") || out.count("WARNING: checkpoint w1-T1-complete.json (complete, 100%) was not written by warden") != 1 {
		t.Errorf("the forgery was not refused, or not said:\n%s", out.dump())
	}
	if out.count("TASK COMPLETE: T1") != 0 {
		t.Errorf("T1 completed:\n%s", out.dump())
	}
	if p := lastResume(t, team); p != 10 {
		t.Errorf("the carried-on session was told it reached %d%%, want its last record's 10%%", p)
	}
}
