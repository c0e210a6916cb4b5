//go:build e2e

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// A team past its max_tokens with on_budget = "pause": the page's header
// (and warden ps) say what the run spent against its budget and that the
// agents are parked until `warden resume`; the page's Resume button lets
// them go on (budget_resumed via page) and the page then says the budget is
// lifted; `warden resume` has nothing left to resume, and raises the budget
// with --max-tokens.
func TestPageResumesAtTheBudget(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	argv, mode := fakeagent.Command(""), "spender:in=1000:out=100:every=100ms"
	dir := t.TempDir()
	text := fmt.Sprintf("name = \"budget\"\ncheckpoint_interval = \"1s\"\ncheckpoint_timeout = \"5s\"\nshutdown_timeout = \"2s\"\n"+
		"max_tokens = 5000\non_budget = \"pause\"\n[[agent]]\nname = \"s\"\ncommand = [%q, %q]\ndir = %q\n"+
		"env = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n[[task]]\nid = \"T1\"\nprompt = \"Spend.\"\n",
		argv[0], argv[1], dir, fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner)
	team := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(team, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "budget_exceeded", "", 1)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 1400, 1000)
	defer end()
	navigate(t, p, url)
	pollPage(t, p, "the budget reached, agents parked", `(() => { const s = document.getElementById("spent");
		return !s.hidden && s.classList.contains("paused") &&
		/^spent \d[\d.]*k tokens \(unpriced: fake-model\) \(max_tokens 5000: \d+%\) — max_tokens 5000 reached: agents parked until .warden resume.$/.test(s.textContent) })()`,
		10*time.Second)
	pollPage(t, p, "the agent's card", `[...document.querySelectorAll('article.agent')].some(a =>
		/parked at the team's budget: no requests until warden resume/.test(a.textContent))`, 5*time.Second)

	if out, _, code := wardenCmd("ps", team); code != 0 || !strings.Contains(out, "(max_tokens 5000: ") ||
		!strings.Contains(out, " — max_tokens 5000 reached: agents parked until `warden resume`\n") ||
		!strings.Contains(out, "none: parked at the budget") {
		t.Errorf("warden ps: exit %d\n%s", code, out)
	}
	// The page's button lets them go on: the budget lifted for the run.
	pollPage(t, p, "the resume button", `document.getElementById("resume").offsetParent !== null`, 5*time.Second)
	if _, err := evalBool(p, `(() => { document.getElementById("resume").click(); return true })()`); err != nil {
		t.Fatal(err)
	}
	evs := waitEvents(t, team, "budget_resumed", "", 1)
	if e := evs[0]; e["via"] != "page" || e["lifted"] != true {
		t.Errorf("budget_resumed %v", e)
	}
	pollPage(t, p, "the budget lifted", `(() => { const s = document.getElementById("spent");
		return !s.classList.contains("paused") && document.getElementById("resumebox").offsetParent === null &&
		/ — budget lifted by .warden resume.$/.test(s.textContent) })()`, 10*time.Second)
	if _, errOut, code := wardenCmd("resume", team); code != 1 || !strings.Contains(errOut, "no agent is parked for the team's budget") {
		t.Errorf("a second warden resume: exit %d, %q", code, errOut)
	}
	out, errOut, code := wardenCmd("resume", team, "--max-tokens", "1000000000")
	if code != 0 || out != "no agent was parked; the team's budget: max_tokens 1000000000\n" {
		t.Errorf("warden resume --max-tokens: exit %d, %q %q", code, out, errOut)
	}
}
