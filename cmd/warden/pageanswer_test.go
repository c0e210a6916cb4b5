//go:build e2e

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// A person answers a dialog on a phone: the page at 390×844 in headless
// Chromium shows the waiting agent first, with its question and two
// buttons (and none on the agents that do not wait), nothing wider than
// the screen, each agent's screen on demand; warden answer with another
// dialog's id is refused as stale; "Allow once" on the page takes the dialog's Yes — the fake TUI
// runs its command, dialog_answered says by a person through the page —
// and the buttons go once the agent no longer waits.
func TestAnswerFromThePageInChromium(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := pageTeam(t, 2, true)
	// The waiting agent named last: the page must still show it first.
	b, _ := os.ReadFile(team)
	os.WriteFile(team, []byte(strings.ReplaceAll(string(b), `"asker"`, `"zz-asker"`)), 0o600)
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "zz-asker", 1)

	out, errOut, code := wardenCmd("answer", team, "zz-asker", "allow-once", "--dialog", "0123456789")
	if code != 1 || !strings.Contains(errOut+out, "stale answer") {
		t.Errorf("warden answer with another dialog's id: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := wardenCmd("answer", team, "zz-asker", "allow-always"); code != 2 || !strings.Contains(errOut, "never answers") {
		t.Errorf("warden answer allow-always: exit %d %s", code, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	navigate(t, p, url)
	const asker = `document.querySelector('article.agent[data-agent="zz-asker"]')`
	pollPage(t, p, "the asker's buttons", `!!(`+asker+` && !`+asker+`.querySelector('.answer').hidden)`, 10*time.Second)
	if ok, _ := evalBool(p, `[...document.querySelectorAll('article.agent:not([data-agent="zz-asker"]) .answer')].every(b => b.hidden)`); !ok {
		t.Error("buttons on an agent that does not wait")
	}
	// A phone: the waiting agent first, its question (not its choices),
	// nothing wider than the screen, the screens on demand.
	checks := []struct{ what, expr string }{
		{"the waiting agent first", `document.querySelector('#agents article.agent').dataset.agent === "zz-asker"`},
		{"its question", `/Do you want to proceed\?/.test(` + asker + `.querySelector('.dialog').textContent) && !/1\. Yes/.test(` + asker + `.querySelector('.dialog').textContent)`},
		{"no sideways scroll", `document.documentElement.scrollWidth <= window.innerWidth`},
		{"the buttons in reach", `(() => { const r = ` + asker + `.querySelector('.answer button.allow').getBoundingClientRect(); return r.height >= 40 && r.right <= window.innerWidth && r.top < window.innerHeight })()`},
		{"the screens hidden", `getComputedStyle(` + asker + `.querySelector('.screen')).display === "none"`},
	}
	for _, c := range checks {
		if ok, err := evalBool(p, c.expr); !ok || err != nil {
			t.Errorf("at 390×844, not %s (%v); the page shows:\n%s", c.what, err, innerText(p))
		}
	}
	if _, err := evalBool(p, `(() => { `+asker+`.querySelector('.showscreen').click(); return true })()`); err != nil {
		t.Fatal(err)
	}
	pollPage(t, p, "the asker's screen on demand", `getComputedStyle(`+asker+`.querySelector('.screen')).display !== "none"`, 2*time.Second)
	if _, err := evalBool(p, `(() => { `+asker+`.querySelector('.answer button.allow').click(); return true })()`); err != nil {
		t.Fatal(err)
	}
	pollPage(t, p, "the answer's outcome", `/answered allow-once/.test(`+asker+`.querySelector('.answer .said').textContent)`, 10*time.Second)
	ev := waitEvents(t, team, "dialog_answered", "zz-asker", 1)[0]
	if ev["by"] != "person" || ev["via"] != "page" || ev["choice"] != "allow-once" {
		t.Errorf("dialog_answered: %v", ev)
	}
	pollPage(t, p, "the command run on the asker's screen", `/Ran curl/.test(`+asker+`.querySelector('.screen').textContent)`, 10*time.Second)
	pollPage(t, p, "the buttons gone", asker+`.querySelector('.answer').hidden`, 10*time.Second)
}
