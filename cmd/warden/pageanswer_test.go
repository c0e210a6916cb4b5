package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// A person answers a dialog on a phone: the page at 390×844 in headless
// Chromium shows the waiting agent's two buttons (and none on the agents
// that do not wait); warden answer with another dialog's id is refused as
// stale; "Allow once" on the page takes the dialog's Yes — the fake TUI
// runs its command, dialog_answered says by a person through the page —
// and the buttons go once the agent no longer waits.
func TestAnswerFromThePageInChromium(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := pageTeam(t, 2, true)
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "asker", 1)

	out, errOut, code := wardenCmd("answer", team, "asker", "allow-once", "--dialog", "0123456789")
	if code != 1 || !strings.Contains(errOut+out, "stale answer") {
		t.Errorf("warden answer with another dialog's id: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := wardenCmd("answer", team, "asker", "allow-always"); code != 2 || !strings.Contains(errOut, "never answers") {
		t.Errorf("warden answer allow-always: exit %d %s", code, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	navigate(t, p, url)
	const asker = `document.querySelector('article.agent[data-agent="asker"]')`
	pollPage(t, p, "the asker's buttons", `!!(`+asker+` && !`+asker+`.querySelector('.answer').hidden)`, 10*time.Second)
	if ok, _ := evalBool(p, `[...document.querySelectorAll('article.agent:not([data-agent="asker"]) .answer')].every(b => b.hidden)`); !ok {
		t.Error("buttons on an agent that does not wait")
	}
	if _, err := evalBool(p, `(() => { `+asker+`.querySelector('.answer button.allow').click(); return true })()`); err != nil {
		t.Fatal(err)
	}
	pollPage(t, p, "the answer's outcome", `/answered allow-once/.test(`+asker+`.querySelector('.answer .said').textContent)`, 10*time.Second)
	ev := waitEvents(t, team, "dialog_answered", "asker", 1)[0]
	if ev["by"] != "person" || ev["via"] != "page" || ev["choice"] != "allow-once" {
		t.Errorf("dialog_answered: %v", ev)
	}
	pollPage(t, p, "the command run on the asker's screen", `/Ran curl/.test(`+asker+`.querySelector('.screen').textContent)`, 10*time.Second)
	pollPage(t, p, "the buttons gone", asker+`.querySelector('.answer').hidden`, 10*time.Second)
}
