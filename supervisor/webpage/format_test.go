//go:build !e2e

package webpage

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/queue"
)

// node returns the node binary, failing in CI (.ci/run installs nodejs) and
// skipping, saying so, elsewhere.
func node(t *testing.T) string {
	for _, name := range []string{"node", "nodejs"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("node is not installed: .ci/run installs nodejs for the page's formatting test")
	}
	t.Skip("node is not installed: the page's formatting is not checked against the Go code here")
	return ""
}

// The page says of a task what STATUS.md and the dashboard say: its label
// (blocked, waiting, or its state), whether it is blocked and on what, its
// subtasks and its time worked beside the estimate — static/format.js,
// run under node, against the Go functions, case by case.
func TestPageSaysWhatStatusSays(t *testing.T) {
	bin := node(t)
	tasks := []queue.Status{
		{ID: "T1", State: queue.Running, Summary: "blocked", Blockers: []string{"needs a key", "ask ops"}, WorkedSeconds: 4200.5, EstimateSeconds: 7200},
		{ID: "T2", State: queue.Blocked, BlockedBy: []string{"T1"}},
		{ID: "T3", State: queue.Blocked, Held: true, Reason: "the branches it starts from conflict (a.go)"},
		{ID: "T4", State: queue.Complete, Summary: "blocked", WorkedSeconds: 9000, EstimateSeconds: 7200},
		{ID: "T5", State: queue.Pending, Summary: "blocked", WorkedSeconds: 59.9},
		{ID: "T6", State: queue.Running, Summary: "implementing", SubtasksDone: 19, SubtasksTotal: 29, WorkedSeconds: 93780, EstimateSeconds: 86400},
		{ID: "T7", State: queue.Failed, Summary: "implementing", EstimateSeconds: 5400},
		{ID: "T8", State: queue.Verifying, SubtasksTotal: 3, WorkedSeconds: 7200, EstimateSeconds: 7200},
		{ID: "T9", State: queue.Pending},
	}
	in, err := json.Marshal(tasks)
	if err != nil {
		t.Fatal(err)
	}
	script := `const F = require(process.argv[1]);
const out = JSON.parse(process.argv[2]).map((t) => [F.label(t), String(F.isBlocked(t)), F.blockedOn(t).join("; "), F.subtasks(t), F.worked(t)].join(" | "));
console.log(out.join("\n"));`
	got, err := exec.Command(bin, "-e", script, "./static/format.js", string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, got)
	}
	var want []string
	for _, s := range tasks {
		want = append(want, strings.Join([]string{s.Label(), fmt.Sprint(s.IsBlocked()), strings.Join(s.BlockedOn(), "; "), s.Subtasks(), s.Worked()}, " | "))
	}
	gotLines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(gotLines) != len(want) {
		t.Fatalf("node printed %d lines for %d tasks:\n%s", len(gotLines), len(want), got)
	}
	for i := range want {
		if gotLines[i] != want[i] {
			t.Errorf("%s: the page says %q, the dashboard %q", tasks[i].ID, gotLines[i], want[i])
		}
	}
}
