//go:build e2e

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

func newTestToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// waitStream waits until the stream has had n events called name whose
// data holds sub.
func waitStream(t *testing.T, s *sse, what, name, sub string, n int, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s.count(name, sub) >= n {
			return
		}
	}
	t.Fatalf("the page's event stream never sent %s within %s; it sent:\n%s", what, d, s.names())
}

// Item 9 of issue 22: a torn line in the middle of events.jsonl (a full
// disk wrote the start of one and the next went on after it) must not end
// the page's event stream when the run is carried on: the events before it
// and after it are sent, and the new run's events keep coming.
func TestPageStreamSkipsATornEventLine(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=1000", task: true})
	cmd, out := runWarden(t, "run", team)
	waitEvents(t, team, "checkpoint_received", "w1", 1)
	stopRun(cmd)
	if out.count("CHECKPOINT COMPLETE") != 1 {
		t.Fatalf("the first run did not stop cleanly:\n%s", out.dump())
	}
	events := filepath.Join(stateOf(team), "events.jsonl")
	b, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	last := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	torn := last[len(last)-1][:len(last[len(last)-1])/2]
	after := `{"ts":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","event":"text_sent","agent":"w1","text":"written after the torn line"}`
	f, err := os.OpenFile(events, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(torn + after + "\n" + after + "\n")
	f.Close()

	page := startPageRun(t, team, 0, []string{"WARDEN_HTTP_TOKEN=" + newTestToken()})
	defer page.stop()
	s, code := page.openStream(t)
	if code != 200 {
		t.Fatalf("/api/events with the token: %d", code)
	}
	defer s.close()
	waitStream(t, s, "the team's state", "ps", `"team":"ops"`, 1, 10*time.Second)
	waitStream(t, s, "the events before the torn line", "event", `"event":"handoff_written"`, 1, 5*time.Second)
	waitStream(t, s, "the event after the torn line", "event", "written after the torn line", 1, 5*time.Second)
	seen := s.count("event", `"event":"checkpoint_received"`)
	waitStream(t, s, "new checkpoints of the carried-on run", "event", `"event":"checkpoint_received"`, seen+3, 15*time.Second)
	if n := s.count("down", ""); n > 0 {
		t.Errorf("the stream said the team was down %d times:\n%s", n, s.names())
	}
}

// Item 9 of issue 22: page viewers — of the run's page and of a `warden
// serve` page beside it, far more than either serves — never take the
// control socket from `warden ps` and `warden stop`, and /healthz answers
// 200 to a probe without the token while the viewers are at their cap. The
// viewers past a page's cap are told 503; those served keep getting the
// team's state.
func TestPageViewersNeverLockOutOperators(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"300ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w1", mode: "worker:steps=1000", task: true},
		opsAgent{name: "w2", mode: "worker:steps=1000", task: true})
	token := newTestToken()
	env := []string{"WARDEN_HTTP_TOKEN=" + token}
	run := startPageRun(t, team, 0, env)
	defer run.stop()
	waitEvents(t, team, "checkpoint_received", "w2", 1)
	serve := startPage(t, stateOf(team), 0, env, "serve", "--http", "127.0.0.1:0", team)
	defer serve.stop()

	var streams []*sse
	defer func() {
		for _, s := range streams {
			s.close()
		}
	}()
	for _, p := range []*pageRun{run, serve} {
		served, refused := 0, 0
		for range 40 {
			s, code := p.openStream(t)
			switch code {
			case 200:
				served++
				streams = append(streams, s)
			case 503:
				refused++
			default:
				t.Errorf("%s: a viewer got %d", p.base, code)
			}
		}
		t.Logf("%s (%s): of 40 viewers, %d served, %d told 503", p.base, strings.Fields(p.line)[1], served, refused)
		if served != 16 || refused != 24 {
			t.Errorf("%s: of 40 viewers %d were served and %d refused: want 16 served (the page's cap), the rest 503", p.base, served, refused)
		}
	}
	for i := range 3 {
		if _, errOut, code := wardenCmdWithin(15*time.Second, "ps", team); code != 0 {
			t.Errorf("warden ps (%d) with %d viewers on: exit %d: %s", i, len(streams), code, errOut)
		}
		for _, p := range []*pageRun{run, serve} {
			if code, body := p.get("/healthz", false); code != 200 || strings.TrimSpace(body) != `{"status":"running"}` {
				t.Errorf("%s/healthz without the token, viewers at their cap: %d %s", p.base, code, body)
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	for i, s := range streams {
		if s.count("ps", `"team":"ops"`) == 0 {
			t.Errorf("viewer %d got no team state:\n%s", i, s.names())
		}
	}

	res, errOut, code := wardenCmdWithin(60*time.Second, "stop", team)
	if code != 0 || !strings.HasSuffix(res, "warden is done\n") {
		t.Errorf("warden stop with %d viewers on: exit %d: %s%s", len(streams), code, res, errOut)
	}
	if err := run.cmd.Wait(); exitCode(err) != 130 {
		t.Errorf("warden run after warden stop: exit %d, want 130", exitCode(err))
	}
	// /healthz asks the team at most once a second.
	code, body := serve.get("/healthz", false)
	for deadline := time.Now().Add(3 * time.Second); code != 503 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		code, body = serve.get("/healthz", false)
	}
	if code != 503 || strings.TrimSpace(body) != `{"status":"not_running"}` {
		t.Errorf("warden serve's /healthz once the team stopped: %d %s", code, body)
	}
	serve.cmd.Process.Signal(syscall.SIGTERM)
	if err := serve.cmd.Wait(); err != nil {
		t.Errorf("warden serve after SIGTERM: %v", err)
	}
}
