//go:build !e2e

package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// base is the crafted runs' start.
var base = time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC)

// at is base plus sec seconds.
func at(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }

// crafted is a state dir a test writes by hand.
type crafted struct {
	t    testing.TB
	root string
	ev   []string
}

// newCrafted writes state.json: run R1 started at base, updated (ended,
// when ended is set) at base + updated seconds, with tasks T1, T2 and
// agents a1, a2.
func newCrafted(t testing.TB, ended string, running bool, updated int) *crafted {
	t.Helper()
	c := &crafted{t: t, root: t.TempDir()}
	snap := state.Snapshot{Team: "night", RunID: "R1", RunStartedAt: base, Ended: ended, Running: running, Pid: 4242,
		UpdatedAt: at(updated), Agents: []state.AgentStatus{{Name: "a1", State: state.Idle}, {Name: "a2", State: state.Running}},
		Tasks: []queue.Status{
			{ID: "T1", Title: "first", State: queue.Complete, Attempt: 2, Progress: 100, WorkedSeconds: 3000, EstimateSeconds: 3600},
			{ID: "T2", Title: "second", State: queue.Failed, Attempt: 5, Reason: "max_attempts 5 reached", WorkedSeconds: 600},
		}}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.root, "state.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// event adds a line to events.jsonl: name at base + sec, with kv.
func (c *crafted) event(sec int, name, agent, task string, kv ...any) *crafted {
	m := map[string]any{"ts": at(sec).Format(time.RFC3339Nano), "event": name}
	if agent != "" {
		m["agent"] = agent
	}
	if task != "" {
		m["task"] = task
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	c.ev = append(c.ev, string(b))
	return c
}

// line adds a raw line to events.jsonl.
func (c *crafted) line(s string) *crafted {
	c.ev = append(c.ev, s)
	return c
}

// build writes events.jsonl and builds the report at base + now seconds.
func (c *crafted) build(now int) *Report {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.root, "events.jsonl"), []byte(strings.Join(c.ev, "\n")+"\n"), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return c.report(now)
}

// report builds the report at base + now seconds from the files as they are.
func (c *crafted) report(now int) *Report {
	c.t.Helper()
	r, err := Build(c.root, at(now))
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// record writes a history record of the run.
func (c *crafted) record(task, id, run, trigger string, sec int, extra map[string]any) {
	c.t.Helper()
	m := map[string]any{"checkpoint_id": id, "run_id": run, "agent": "a1", "task_id": task, "trigger": trigger,
		"status": "implementing", "updated_at": at(sec)}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	p := filepath.Join(c.root, "checkpoints", "history", task, id+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// widthOf is how many columns a terminal gives s.
func widthOf(s string) int { return ansi.StringWidth(s) }

// unwrapped is a page with its continuation lines joined to the lines
// they continue.
func unwrapped(page string) string {
	lines := strings.Split(page, "\n")
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "  ") && len(out) > 0 {
			out[len(out)-1] += " " + strings.TrimLeft(l, " ")
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
