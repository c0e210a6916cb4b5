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

// The page shows the team's memory: how many agents run and wait their
// turn under max_running, MemAvailable against memory_floor, the footprint
// warden expects of each CLI (plain's default until one has run 10 s),
// and an agent waiting its turn in state admission with why.
func TestDashboardPageShowsMemory(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	b.WriteString("name = \"memory\"\ncheckpoint_interval = \"500ms\"\ncheckpoint_timeout = \"5s\"\nshutdown_timeout = \"2s\"\n" +
		"max_running = 1\nmemory_floor = \"1MB\"\n")
	for i := 1; i <= 2; i++ {
		argv, mode := fakeagent.Command(""), "memory:hold=20:steps=60"
		fmt.Fprintf(&b, "[[agent]]\nname = \"w%d\"\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			i, argv[0], argv[1], fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner)
		fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\nprompt = \"Do task %d.\"\nagent = \"w%d\"\n", i, i, i)
	}
	team := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(team, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "admission_waiting", "", 1)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 1400, 1000)
	defer end()
	navigate(t, p, url)
	pollPage(t, p, "the memory box", `(() => { const m = document.getElementById("memorybox"); return !m.hidden &&
		/1 running \(max_running 1\) · 1 waiting their turn · MemAvailable \d[\d.]* GiB · memory_floor 1 MB/.test(m.textContent) })()`, 5*time.Second)
	pollPage(t, p, "plain's footprint", `(() => { const li = document.querySelector('#memory li[data-profile="plain"]');
		return li && /512 MiB/.test(li.textContent) && /default: not learned yet/.test(li.textContent) })()`, 5*time.Second)
	pollPage(t, p, "the agent waiting its turn", `[...document.querySelectorAll('article.agent')].some(a =>
		a.querySelector('.state').textContent === "admission" && /waits its turn: 1 agent running \(max_running 1\)/.test(a.textContent))`, 5*time.Second)
}
