//go:build e2e

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wardenhq/warden/internal/proctest"
)

// BenchmarkPagePhone20: the page on a phone (headless Chromium at
// 390×844) with 20 agents, one of them (named last) waiting on a dialog:
// first contentful paint, and the waiting agent drawn first with its
// question and its two buttons, from navigation start (target ≤ 500 ms).
func BenchmarkPagePhone20(b *testing.B) {
	defer proctest.AssertNone(b)
	bin := chromium(b)
	team := pageTeam(b, 19, true)
	t, _ := os.ReadFile(team)
	os.WriteFile(team, []byte(strings.ReplaceAll(string(t), `"asker"`, `"zz-asker"`)), 0o600)
	run, url := runWithPage(b, team)
	defer stopRun(run)
	waitEvents(b, team, "agent_waiting", "zz-asker", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	browser, end := startBrowser(b, ctx, bin, 390, 844)
	defer end()
	var fcp, ready, cards []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, closeTab := openTab(b, browser)
		navigate(b, p, url)
		at, err := chromedp.Run(p, chromedp.Evaluate[struct{ FCP, Ready, Cards float64 }](`new Promise(done => {
			let cards = 0;
			const check = () => {
				if (!cards && document.querySelectorAll('article.agent').length >= 20) cards = performance.now();
				const first = document.querySelector('#agents article.agent');
				if (document.querySelectorAll('article.agent').length < 20 || !first || first.dataset.agent !== "zz-asker" ||
					first.querySelector('.answer').hidden || !/Do you want to proceed/.test(first.querySelector('.dialog').textContent))
					return requestAnimationFrame(check);
				const ready = performance.now();
				requestAnimationFrame(() => {
					const p = performance.getEntriesByName('first-contentful-paint')[0];
					done({FCP: p ? p.startTime : -1, Ready: ready, Cards: cards});
				});
			};
			check();
		})`, chromedp.EvalAwaitPromise))
		closeTab()
		if err != nil {
			b.Fatal(err)
		}
		fcp = append(fcp, time.Duration(at.FCP*float64(time.Millisecond)))
		ready = append(ready, time.Duration(at.Ready*float64(time.Millisecond)))
		cards = append(cards, time.Duration(at.Cards*float64(time.Millisecond)))
	}
	b.ReportMetric(ms(pct(fcp, 0.5)), "first-paint-ms")
	b.ReportMetric(ms(pct(cards, 0.5)), "all-20-agents-ms")
	b.ReportMetric(ms(pct(ready, 0.5)), "waiting-card-ms")
	b.ReportMetric(ms(pct(ready, 1)), "waiting-card-max-ms")
}
