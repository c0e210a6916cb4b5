//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// The page the morning after: the team ran to its end overnight, and a
// person opens `warden serve`'s page with no warden running it. The event
// stream gives the team's last state from state.json ("disk") and its
// newest events from events.jsonl, then "down"; in Chromium at a phone's
// size the page shows the agents and tasks as they ended, the events up to
// team_done, and says that no warden runs and when that state was written
// — not a blank page that only says so.
func TestThePageTheMorningAfter(t *testing.T) {
	bin := chromium(t)
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=3", "worker:steps=3")
	if out, errOut, code := wardenCmd("run", team); code != 0 {
		t.Fatalf("warden run: exit %d\n%s%s", code, out, errOut)
	}
	// As if w1 had been left waiting on a dialog when its warden ended:
	// the page shows the dialog, and no buttons — no warden could type an
	// answer.
	waitingOnDisk(t, stateOf(team), "w1", "Do you want to proceed?")
	p := startPage(t, stateOf(team), 0, nil, "serve", "--http", "127.0.0.1:0", team)
	defer p.stop()

	s, code := p.openStream(t)
	if code != 200 {
		t.Fatalf("/api/events: %d", code)
	}
	defer s.close()
	for deadline := time.Now().Add(10 * time.Second); s.count("down", "") == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if s.count("disk", `"team":"lifecycle"`) != 1 || s.count("disk", `"ended":"finished"`) != 1 ||
		s.count("event", `"event":"team_done"`) != 1 || s.count("event", `"event":"run_started"`) != 1 || s.count("down", "") == 0 {
		t.Fatalf("the stream with no warden running: want disk (the last state), the events, then down:\n%s", s.names())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tab, end := startBrowser(t, ctx, bin, 390, 844)
	defer end()
	navigate(t, tab, p.base+"/?token="+p.token)
	pollPage(t, tab, "the run finished (not a green running), and the last state's time", `document.getElementById('conn').textContent === 'finished' &&
		/the run finished; its last state, written \d+s ago/.test(document.getElementById('summary').textContent)`, 10*time.Second)
	pollPage(t, tab, "both agents as they ended", `["w1","w2"].every(n => { const a = document.querySelector('article.agent[data-agent="'+n+'"]');
		return a && a.querySelector('.state').textContent === (n === 'w1' ? 'waiting' : 'exited') && /last checkpoint \d+s ago/.test(a.textContent) })`, 5*time.Second)
	pollPage(t, tab, "w1's dialog without the answer buttons", `(() => { const a = document.querySelector('article.agent[data-agent="w1"]');
		return /Do you want to proceed\?/.test(a.querySelector('.dialog').textContent) && a.querySelector('.answer').hidden &&
			a.querySelector('.answer button').offsetParent === null })()`, 5*time.Second)
	pollPage(t, tab, "both tasks complete", `document.querySelectorAll('#graph g[data-task]').length === 2 &&
		[...document.querySelectorAll('#graph g[data-task] text')].filter(x => /· complete$/.test(x.textContent)).length === 2`, 5*time.Second)
	pollPage(t, tab, "the events to team_done", `!!document.querySelector('#events li[data-event="team_done"]') &&
		!!document.querySelector('#events li[data-event="task_completed"]')`, 5*time.Second)
}

// waitingOnDisk rewrites the state dir's state.json as if agent had been
// waiting on dialog when its warden ended.
func waitingOnDisk(t *testing.T, stateDir, agent, dialog string) {
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
	found := false
	for _, a := range snap["agents"].([]any) {
		if m := a.(map[string]any); m["name"] == agent {
			m["state"], m["dialog"], found = "waiting", dialog, true
		}
	}
	if b, err = json.Marshal(snap); err != nil || !found {
		t.Fatalf("state.json: %v (agent %s found: %v)", err, agent, found)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
