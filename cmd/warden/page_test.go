//go:build e2e

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// pageTeam writes a team for the page: n plain workers on tasks T1…Tn, a
// task blocked by the first two, and (dialog) an agent waiting on a dialog.
func pageTeam(t testing.TB, n int, dialog bool) string {
	t.Helper()
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	b.WriteString("name = \"page\"\ncheckpoint_interval = \"500ms\"\ncheckpoint_timeout = \"5s\"\nshutdown_timeout = \"2s\"\n")
	agent := func(name, mode, profile string) {
		argv := fakeagent.Command(mode)
		fmt.Fprintf(&b, "[[agent]]\nname = %q\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			name, argv[0], argv[1], fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner)
		if profile != "" {
			fmt.Fprintf(&b, "profile = %q\n", profile)
		}
	}
	for i := 1; i <= n; i++ {
		agent(fmt.Sprintf("w%02d", i), "worker:steps=30", "")
		fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"Do task %d.\"\nagent = \"w%02d\"\n", i, i, i, i)
	}
	fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\ntitle = \"after the first two\"\nprompt = \"Join.\"\nblocked_by = [\"T1\", \"T2\"]\n", n+1)
	if dialog {
		agent("asker", "tui-dialog:"+filepath.Join(t.TempDir(), "dialog.log"), "claude")
		b.WriteString("[[task]]\nid = \"D1\"\ntitle = \"ask for approval\"\nprompt = \"Probe.\"\nagent = \"asker\"\n")
	}
	p := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runWithPage starts `warden run --http 127.0.0.1:0` and returns it with
// the page's address, carrying the token warden made up (from the state
// dir's page-token file, as a person finds it).
func runWithPage(t testing.TB, team string) (*exec.Cmd, string) {
	t.Helper()
	p := startPageRun(t, team, 0, nil)
	if p.token == "" {
		p.stop()
		t.Fatalf("no page-token in the state dir; warden said: %s", p.line)
	}
	return p.cmd, p.base + "/?token=" + p.token
}

// pollPage evaluates expr in tab until it is true, up to d; it returns when.
func pollPage(t testing.TB, tab context.Context, what, expr string, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, err := evalBool(tab, expr)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never showed %s within %s; it shows:\n%s", what, d, innerText(tab))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The dashboard page in a real headless Chromium: it loads, shows every
// agent (state, task, progress, last checkpoint, the dialog one waits on,
// its screen), the tasks as a graph with blocked_by edges and the events;
// it shows a new event within 1 s; its screenshot is kept.
func TestDashboardPageInChromium(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := pageTeam(t, 3, true)
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "asker", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 1400, 1000)
	defer end()
	navigate(t, p, url)
	pollPage(t, p, "every agent", `["w01","w02","w03","asker"].every(n => document.querySelector('article.agent[data-agent="'+n+'"]'))`, 5*time.Second)
	pollPage(t, p, "the running agents' tasks and checkpoints",
		`[...document.querySelectorAll('article.agent')].filter(a => /running/.test(a.querySelector('.state').textContent) && /task T\d/.test(a.textContent) && /last checkpoint \d+s ago/.test(a.textContent)).length >= 3`, 10*time.Second)
	pollPage(t, p, "the dialog the asker waits on",
		`(() => { const a = document.querySelector('article.agent[data-agent="asker"]'); return a.classList.contains('waiting') && /Do you want to proceed\?/.test(a.querySelector('.dialog').textContent) })()`, 5*time.Second)
	pollPage(t, p, "w01's screen", `/CHECKPOINT: T1/.test(document.querySelector('article.agent[data-agent="w01"] .screen').textContent)`, 5*time.Second)
	pollPage(t, p, "the asker's screen from the emulator", `/❯ 1\. Yes/.test(document.querySelector('article.agent[data-agent="asker"] .screen').textContent)`, 5*time.Second)
	pollPage(t, p, "the task graph", `document.querySelectorAll('#graph g[data-task]').length === 5 && document.querySelectorAll('#graph path.edge').length === 2`, 5*time.Second)
	pollPage(t, p, "the events", `!!document.querySelector('#events li[data-event="agent_started"]')`, 5*time.Second)

	// A new event reaches the page within 1 s.
	if out, errOut, code := wardenCmd("send", team, "asker", "are you there"); code != 1 {
		t.Fatalf("send into the dialog: exit %d %s %s", code, out, errOut)
	}
	seen := pollPage(t, p, "the text_sent event", `!!document.querySelector('#events li[data-event="text_sent"]')`, 5*time.Second)
	ev := waitEvents(t, team, "text_sent", "asker", 1)[0]
	if lag := seen.Sub(eventTS(ev)); lag > time.Second {
		t.Errorf("the page showed text_sent %s after it was written, want ≤ 1 s", lag)
	} else {
		t.Logf("text_sent on the page %s after it was written", lag.Round(time.Millisecond))
	}

	png, err := screenshot(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := artifacts(t.TempDir())
	path := filepath.Join(dir, "dashboard-"+time.Now().Format("20060102-150405")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the page: %s (%d bytes)", path, len(png))
	if len(png) < 20<<10 {
		t.Errorf("the screenshot is %d bytes: a blank page?", len(png))
	}
}
