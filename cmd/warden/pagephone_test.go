//go:build e2e

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wardenhq/warden/internal/proctest"
)

// The page on a phone (Chromium at 390×844): with agents working, one
// waiting on a dialog (its text and the answer buttons shown, and on no
// other agent), the task graph and the events drawn, nothing is wider than
// the screen — the page never scrolls sideways (what is wider, an agent's
// screen or the graph, scrolls in its own box).
func TestThePageFitsAPhone(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := pageTeam(t, 3, true)
	cmd, url := runWithPage(t, team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_waiting", "asker", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tab, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	asPhone(t, tab)
	navigate(t, tab, url)
	pollPage(t, tab, "every agent, the dialog, the graph and the events", `["w01","w02","w03","asker"].every(n => document.querySelector('article.agent[data-agent="'+n+'"]')) &&
		/Do you want to proceed\?/.test(document.querySelector('article.agent[data-agent="asker"] .dialog').textContent) &&
		document.querySelectorAll('#graph g[data-task]').length === 5 && document.querySelectorAll('#events li').length >= 10 &&
		/CHECKPOINT: T1/.test(document.querySelector('article.agent[data-agent="w01"] .screen').textContent)`, 15*time.Second)
	if ok, err := evalBool(tab, `[...document.querySelectorAll('article.agent:not(.waiting) .answer, article.agent:not(.waiting) .answer button')].every(e => e.offsetParent === null)`); err != nil || !ok {
		t.Errorf("answer buttons shown on an agent that waits on nothing (%v)", err)
	}
	if w, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.documentElement.clientWidth`)); err != nil || w != 390 {
		t.Fatalf("the page's viewport is %d px wide, want 390 (%v)", w, err)
	}
	if ok, err := evalBool(tab, `document.scrollingElement.scrollWidth <= 390`); err != nil || !ok {
		wide, _ := chromedp.Run(tab, chromedp.Evaluate[string](`"scrollWidth " + document.scrollingElement.scrollWidth + "; wider than 390: " +
			[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 390.5).slice(0, 12)
			.map(e => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.replace(/ /g, '.') : '') + (e.id ? '#' + e.id : '') +
				' to ' + Math.round(e.getBoundingClientRect().right)).join(", ")`))
		t.Errorf("the page scrolls sideways at 390 px (%v): %s", err, wide)
	}
	if png, err := screenshot(tab); err == nil {
		path := filepath.Join(artifacts(t.TempDir()), "phone-"+time.Now().Format("20060102-150405")+".png")
		if os.WriteFile(path, png, 0o644) == nil {
			t.Logf("screenshot of the page on a phone: %s", path)
		}
	}
}

// asPhone makes tab a phone's screen, 390×844 CSS pixels at 3×, touch:
// headless Chromium's window is never narrower than 500 px, whatever size
// it was started at.
func asPhone(t testing.TB, tab context.Context) {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatalf("emulate a phone: %v", err)
	}
}
