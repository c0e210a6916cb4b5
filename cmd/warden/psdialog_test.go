//go:build !e2e

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// warden ps after a person declined an agent's dialog says so under the
// agents' table — "declined", its question, through what, how long ago —
// once the agent no longer waits; while it waits on its next dialog, that
// dialog is shown instead.
func TestPSSaysTheLastDialogWasDeclined(t *testing.T) {
	now := time.Date(2026, 12, 7, 3, 10, 0, 0, time.UTC)
	declined := &state.DialogOutcome{Outcome: state.Declined, Question: "Bash command\n  curl -s http://127.0.0.1:9/probe\nDo you want to proceed?",
		Via: "page", At: now.Add(-3 * time.Minute)}
	ps := &control.PS{Team: "page", Pid: 42, StartedAt: now.Add(-time.Hour), Now: now, Agents: []control.Agent{
		{AgentStatus: state.AgentStatus{Name: "asker", State: state.Running, Task: "D1", Attempt: 1, LastDialog: declined}},
		{AgentStatus: state.AgentStatus{Name: "zz", State: state.Waiting, Task: "D2", Attempt: 1, Dialog: "Do you want to make this edit?",
			LastDialog: &state.DialogOutcome{Outcome: state.AllowedOnce, Via: "cli", At: now}}},
	}}
	var b bytes.Buffer
	renderPS(&b, ps)
	out := b.String()
	want := "\nasker's last dialog (Bash command curl -s http://127.0.0.1:9/probe Do you want to proceed?) was declined by a person through the page, 3m ago\n"
	if !strings.Contains(out, want) {
		t.Errorf("warden ps lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "zz's last dialog") || !strings.Contains(out, "zz waits on a dialog:\n  | Do you want to make this edit?") {
		t.Errorf("warden ps of an agent waiting on its next dialog:\n%s", out)
	}
}

// warden ps of two open tasks that modify the same files: an overlap line
// under the agents, and the held agent's next request says what it waits
// for.
func TestPSSaysTheOverlap(t *testing.T) {
	now := time.Date(2026, 12, 7, 3, 10, 0, 0, time.UTC)
	ps := &control.PS{Team: "night", Pid: 42, StartedAt: now.Add(-time.Hour), Now: now, Agents: []control.Agent{
		{AgentStatus: state.AgentStatus{Name: "a", State: state.Running, Task: "T1", Attempt: 1}},
		{AgentStatus: state.AgentStatus{Name: "b", State: state.Running, Task: "T2", Attempt: 1, OverlapHeld: "T1"}},
	}, Overlaps: []state.Overlap{{Tasks: []string{"T1", "T2"}, Agents: []string{"a", "b"}, Paths: []string{"src/x.go"}, Action: "serialize", At: now}}}
	var b bytes.Buffer
	renderPS(&b, ps)
	out := b.String()
	if !strings.Contains(out, "\noverlap: T1 (a) and T2 (b) both modify src/x.go; T2 held until T1 ends\n") ||
		!strings.Contains(out, "none: held until T1 ends") {
		t.Errorf("warden ps:\n%s", out)
	}
}
