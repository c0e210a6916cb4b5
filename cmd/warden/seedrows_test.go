//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// seedTeam writes a team of two fake workers: w1 (the lead) answers with
// every seed line on T1, which has an estimate; w2 answers blocked on T2;
// T3 waits for T1 (blocked_by).
func seedTeam(t *testing.T) string {
	t.Helper()
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	b.WriteString(`name = "seeds"
checkpoint_interval = "1s"
checkpoint_timeout = "5s"
shutdown_timeout = "2s"
stale_warning = "1m"
stale_failure = "2m"
`)
	for _, a := range []struct{ name, mode, extra string }{
		{"w1", "worker:steps=30:seed=1", "lead = true\n"},
		{"w2", "worker:steps=1:final=blocked", ""},
	} {
		argv := fakeagent.Command(a.mode)
		fmt.Fprintf(&b, "[[agent]]\nname = %q\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n%s",
			a.name, argv[0], argv[1], fakeagent.EnvMode, a.mode, fakeagent.EnvOwner, owner, a.extra)
	}
	b.WriteString(`[[task]]
id = "T1"
title = "seed fields"
prompt = "Do T1."
agent = "w1"
estimate = "2h"
[[task]]
id = "T2"
title = "blocked one"
prompt = "Do T2."
agent = "w2"
[[task]]
id = "T3"
title = "after T1"
prompt = "Do T3."
blocked_by = ["T1"]
`)
	p := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// contains fails the test for each of want that text lacks.
func contains(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// The seeds' rows, end to end with real processes: an agent answers with
// phase, current step, a subtasks checklist, files created, errors and a
// line of its own; another says it is blocked; a third task waits for the
// first. warden status, STATUS.md and state.json show the seed fields, the
// time worked beside the estimate, the blocked task counted and listed as
// blocked (with its agent and blockers) and the waiting one as waiting; the
// handoff gives each agent's role (the lead marked) and task, the review,
// and the seed fields in its resumption notes; the next session's first
// prompt writes them out; no process is left.
func TestSeedRowsEndToEnd(t *testing.T) {
	defer proctest.AssertNone(t)
	team := seedTeam(t)
	cmd, out := runWarden(t, "run", team)
	defer stopRun(cmd)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 1)
	out.waitFor(t, "WARNING: T2 is blocked", 1)
	st := stateOf(team)

	human, errOut, code := wardenCmd("status", team)
	if code != 0 {
		t.Fatalf("warden status: exit %d\n%s", code, errOut)
	}
	contains(t, "warden status", human,
		"tasks done 0/3, available 0, blocked 1, waiting 1, pending verification 0\n",
		"implementing, phase: build, step: step ", "/30, 1 error, last done: step ", ", worked ",
		" / est. 2h\n",
		"   task  T2           blocked   100%  w2 last done: step 1, worked ", " — blocked on: waiting for the API key\n",
		"   task  T3           waiting     0%  - waits for: T1\n",
		"   Blocked:\n   - T2 (w2): waiting for the API key\n")

	raw, _, code := wardenCmd("status", "--json", team)
	var js struct {
		Tasks []struct {
			ID, State, Summary, Phase string
			Step                      string  `json:"current_step"`
			Done                      int     `json:"subtasks_done"`
			Total                     int     `json:"subtasks_total"`
			Errors                    int     `json:"errors"`
			Worked                    float64 `json:"worked_seconds"`
			Estimate                  float64 `json:"estimate_seconds"`
		}
	}
	if err := json.Unmarshal([]byte(raw), &js); err != nil || code != 0 || len(js.Tasks) != 3 {
		t.Fatalf("warden status --json: exit %d, %v\n%s", code, err, raw)
	}
	t1, t2, t3 := js.Tasks[0], js.Tasks[1], js.Tasks[2]
	if t1.Phase != "build" || t1.Step != fmt.Sprintf("step %d", t1.Done+1) || t1.Done < 1 || t1.Total != 30 || t1.Errors != 1 || t1.Estimate != 7200 || t1.Worked <= 0 {
		t.Errorf("T1 in state.json: %+v", t1)
	}
	if t2.State != "running" || t2.Summary != "blocked" || t3.State != "blocked" {
		t.Errorf("the states in state.json changed: T2 %+v, T3 %+v (waiting on blocked_by stays \"blocked\")", t2, t3)
	}
	if file, _ := os.ReadFile(filepath.Join(st, "state.json")); !strings.Contains(string(file), `"estimate_seconds": 7200`) {
		t.Errorf("state.json:\n%s", file)
	}

	md, _ := os.ReadFile(filepath.Join(st, "STATUS.md"))
	contains(t, "STATUS.md", string(md), "Tasks: 0 of 3 done, 1 running, 1 blocked, 1 waiting.",
		"| T1 | seed fields | running | w1 | ", " / est. 2h | build | step ", "/30 | 1 | step ",
		"| T2 | blocked one | blocked | w2 | 100% |", "| T3 | after T1 | waiting | - | 0% | - | - | - | - | - | - | T1 |",
		"## Blocked\n\n- T2 (w2): waiting for the API key\n")

	// A team checkpoint: the handoff, then fresh sessions from it.
	if msg, err := warden("checkpoint", team).CombinedOutput(); err != nil {
		t.Fatalf("warden checkpoint: %v\n%s", err, msg)
	}
	out.waitFor(t, "CHECKPOINT COMPLETE", 1)
	handoff, _ := os.ReadFile(filepath.Join(st, "handoff.md"))
	contains(t, "handoff.md", string(handoff),
		"| Agent | Profile | Role | Task | State | Command |", "| w1 | plain | **lead** | T1 | ", "| w2 | plain | worker | T2 | ",
		"| T2 | blocked one | blocked | w2 | 100% | ", "| T3 | after T1 | waiting | - | 0% | - | T1 |",
		"## Blocked\n\n- T2 (w2): waiting for the API key\n",
		"## Review\n", "| T1 | in_progress | - | - | - | 1 |", "No task is complete yet: nothing waits for a review.",
		"### T1: seed fields", "It was in phase build, at the step: step ", " subtasks (do not redo the done ones):\n  * [done] step 1\n",
		"Files it created: new", "Errors it reported:\n  * undefined: x (at step", "Other lines of its checkpoint:\n  * Mood: steady\n")
	log := filepath.Join(st, "logs", "w1.log")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(log); strings.Contains(string(b), "RESUME-SEEN: * [done] step 1") {
			contains(t, "the fresh session's first prompt", string(b), "It was in phase build, at the step: step ",
				"Files it created: new", "(at step", "* Mood: steady")
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log)
			t.Fatalf("the fresh session was not told its subtasks:\n%s", b)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Errorf("exit %d after Ctrl-C, want 130\n%s", exitCode(err), out.dump())
	}
}

// The dashboard page in a real headless Chromium says what warden status
// says: tasks done, blocked and waiting in its summary; the Blocked list
// with task, agent and blockers; an agent's card with its task's phase,
// step, subtasks, errors and time worked beside the estimate; the task
// graph with "blocked" and "waiting" nodes.
func TestPageShowsSeedFieldsAndBlocked(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := seedTeam(t)
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "task_blocked", "w2", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 1400, 1000)
	defer end()
	navigate(t, p, url)
	pollPage(t, p, "the summary's counts", `/tasks done 0\/3 · blocked 1 · waiting 1/.test(document.getElementById("summary").textContent)`, 10*time.Second)
	pollPage(t, p, "the Blocked list",
		`(() => { const box = document.getElementById("blockedbox"), li = box.querySelector('li[data-task="T2"]');
		  return !box.hidden && box.querySelectorAll("li").length === 1 && li && /w2/.test(li.textContent) && /waiting for the API key/.test(li.textContent) })()`, 5*time.Second)
	pollPage(t, p, "w1's seed fields and time worked",
		`/phase build · step: step \d+ · subtasks \d+\/30 · 1 error · worked \S+ \/ est\. 2h/.test(document.querySelector('article.agent[data-agent="w1"] .seed').textContent)`, 5*time.Second)
	pollPage(t, p, "w2's card says blocked on what",
		`/blocked on: waiting for the API key/.test(document.querySelector('article.agent[data-agent="w2"] .seed').textContent)`, 5*time.Second)
	pollPage(t, p, "the graph's blocked and waiting nodes",
		`/T2 · blocked/.test(document.querySelector('#graph g[data-task="T2"]').textContent) && /T3 · waiting/.test(document.querySelector('#graph g[data-task="T3"]').textContent)`, 5*time.Second)
	if png, err := screenshot(p); err == nil {
		path := filepath.Join(artifacts(t.TempDir()), "dashboard-seeds-"+time.Now().Format("20060102-150405")+".png")
		if os.WriteFile(path, png, 0o644) == nil {
			t.Logf("screenshot of the page: %s", path)
		}
	}
}
