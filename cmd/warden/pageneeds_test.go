//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// The page on a phone (Chromium at 390×844) after a night carried on three
// times, an agent waiting on a dialog: the header's first line says who
// needs you ("1 needs you: asker waits on a dialog: … Do you want to
// proceed?"), only the last carry-on is said (the others counted), so the
// waiting agent's Allow/Deny buttons are on the first screen; the dates are
// in one style; and when the warden that serves the page dies, its badge
// no longer says a green "running".
func TestThePageSaysWhoNeedsYouOnAPhone(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := pageTeam(t, 2, true)
	cmd, _ := runWarden(t, "run", team)
	waitEvents(t, team, "agent_waiting", "asker", 1)
	waitEvents(t, team, "checkpoint_received", "w01", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	earlierCarryOns(t, stateOf(team), 2)

	p := startPageRun(t, team, 0, nil)
	defer p.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tab, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	asPhone(t, tab)
	navigate(t, tab, p.base+"/?token="+p.token)
	const asker = `document.querySelector('article.agent[data-agent="asker"]')`
	pollPage(t, tab, "the asker's buttons", `!!(`+asker+` && !`+asker+`.querySelector('.answer').hidden)`, 30*time.Second)
	checks := []struct{ what, expr string }{
		{"who needs you, first", `/^1 needs you: asker waits on a dialog: .*Do you want to proceed\?/.test(document.getElementById('needs').textContent) &&
			document.getElementById('needs').getBoundingClientRect().top < 80`},
		{"only the last carry-on, the others counted", `(() => { const c = document.getElementById('carried').textContent;
			return c.split('Resumed ').length === 2 && / · carried on 3 times \(warden status lists each\)$/.test(c) })()`},
		{"one date style", `/^Resumed \d{4}-\d\d-\d\d \d\d:\d\d \(\d+[sm] ago\) after its supervisor died; last update at \d{4}-\d\d-\d\d \d\d:\d\d: /.test(document.getElementById('carried').textContent)`},
		{"the waiting agent first", `document.querySelector('#agents article.agent').dataset.agent === "asker"`},
		{"Allow and Deny on the first screen", `[...` + asker + `.querySelectorAll('.answer button')].every(b => { const r = b.getBoundingClientRect();
			return r.height >= 40 && r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth })`},
		{"no sideways scroll", `document.documentElement.scrollWidth <= window.innerWidth`},
		{"the badge green while it runs", `document.getElementById('conn').textContent === 'running'`},
	}
	for _, c := range checks {
		if ok, err := evalBool(tab, c.expr); !ok || err != nil {
			t.Errorf("at 390×844, not %s (%v); the page shows:\n%s", c.what, err, innerText(tab))
		}
	}
	if png, err := screenshot(tab); err == nil {
		path := filepath.Join(artifacts(t.TempDir()), "needs-"+time.Now().Format("20060102-150405")+".png")
		if os.WriteFile(path, png, 0o644) == nil {
			t.Logf("screenshot: %s", path)
		}
	}
	// The warden that serves the page dies with it: nothing sends "down".
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	pollPage(t, tab, "the badge of a dead team", `document.getElementById('conn').textContent === 'connection lost' &&
		!document.getElementById('conn').classList.contains('running')`, 10*time.Second)
}

// earlierCarryOns adds n carry-ons before the run's own to state.json in
// stateDir, as if its supervisor had died n times before.
func earlierCarryOns(t *testing.T, stateDir string, n int) {
	t.Helper()
	path := filepath.Join(stateDir, "state.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	prev, _ := snap["carried_on"].([]any)
	for i := n; i > 0; i-- {
		at := time.Now().Add(-time.Duration(i) * time.Hour)
		prev = append([]any{map[string]any{"at": at.Format(time.RFC3339Nano),
			"after": "its supervisor died; last update at " + at.Add(-time.Minute).Format("2006-01-02 15:04"),
			"resumed": []any{map[string]any{"task": "T1", "agent": "w01", "checkpoint_id": "c" + string(rune('0'+i)), "progress": 10 * i,
				"status": "implementing", "updated_at": at.Add(-time.Minute).Format(time.RFC3339Nano)}}}}, prev...)
	}
	snap["carried_on"] = prev
	if b, err = json.Marshal(snap); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// After a person declines an agent's dialog (warden answer … deny), warden
// ps and the page on a phone say that agent's last dialog was declined
// (issue 35), whatever the CLI's screen says after it.
func TestAfterADeclinePSAndThePageSayDeclined(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := pageTeam(t, 2, true)
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "asker", 1)
	if out, errOut, code := wardenCmd("answer", team, "asker", "deny"); code != 0 {
		t.Fatalf("warden answer asker deny: exit %d\n%s%s", code, out, errOut)
	}
	waitEvents(t, team, "dialog_answered", "asker", 1)
	var ps string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ps, _, _ = wardenCmd("ps", team); regexp.MustCompile(`(?m)^asker's last dialog \(.*Do you want to proceed\?\) was declined by a person through warden answer, \d+s ago$`).MatchString(ps) {
			break
		}
	}
	if !strings.Contains(ps, "was declined by a person") {
		t.Errorf("warden ps after the deny does not say declined:\n%s", ps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tab, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	asPhone(t, tab)
	navigate(t, tab, url)
	pollPage(t, tab, "the asker's last dialog declined", `(() => { const d = document.querySelector('article.agent[data-agent="asker"] .dialog');
		return !!d && !d.hidden && d.offsetParent !== null && /^last dialog declined by a person through warden answer, \d+s ago: .*Do you want to proceed\?$/.test(d.textContent) })()`, 10*time.Second)
}
