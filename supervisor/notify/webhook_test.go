//go:build !e2e

package notify

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
)

// posted is one request a receiver got.
type posted struct {
	at     time.Time
	method string
	header http.Header
	body   string
}

// receiver is a local HTTP receiver: it answers each POST with the next
// status of its script (200 once the script is used up) and hands every
// request to the test.
type receiver struct {
	srv  *httptest.Server
	got  chan posted
	mu   sync.Mutex
	plan []int
}

func newReceiver(t *testing.T, plan ...int) *receiver {
	r := &receiver{got: make(chan posted, 100), plan: plan}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.got <- posted{at: time.Now(), method: req.Method, header: req.Header.Clone(), body: string(b)}
		r.mu.Lock()
		code := http.StatusOK
		if len(r.plan) > 0 {
			code, r.plan = r.plan[0], r.plan[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) next(t *testing.T) posted {
	t.Helper()
	select {
	case p := <-r.got:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no POST within 10s")
		return posted{}
	}
}

func (r *receiver) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case p := <-r.got:
		t.Fatalf("unexpected POST: %s", p.body)
	case <-time.After(d):
	}
}

// codexWaiting is agent_waiting as warden writes it for Codex's approval
// dialog: the text is what the screen shows of the dialog (its choices),
// the question what it asks.
func codexWaiting(agent string) Event {
	line, _ := json.Marshal(map[string]any{"ts": "2026-11-26T01:00:00Z", "event": "agent_waiting", "agent": agent, "task": "T060",
		"kind": "permission", "session_id": "abc",
		"text":     "› 1. Yes, proceed (y)\n2. Yes, and don't ask again for commands that start with `curl -s http://127.0.0.1:9/probe > fetched.txt` (p)\n3. No, and tell Codex what to do differently (esc)\nPress enter to confirm or esc to cancel",
		"question": "Would you like to run the following command?\nReason: Fetch the probe page into fetched.txt\n$ curl -s http://127.0.0.1:9/probe > fetched.txt"})
	return Event{Name: "agent_waiting", Agent: agent, Task: "T060", JSON: append(line, '\n')}
}

// ntfy's documented request: a POST whose body is the message, with Title,
// Tags, Priority and Click headers. The message holds the agent, the task,
// the dialog's question (not the preselected choice), how to answer and
// the page's address — without its token.
func TestNtfyPost(t *testing.T) {
	rcv := newReceiver(t)
	h := newHarness(t, []config.Notify{urlRule([]string{"agent_waiting"}, rcv.srv.URL+"/warden-night", config.NotifyNtfy)}, clock.Real{}, 1, 8)
	h.n.SetPage("http://night.example:8080/")
	h.n.Notify(codexWaiting("worker-1"))
	p := rcv.next(t)
	title, err := new(mime.WordDecoder).DecodeHeader(p.header.Get("Title"))
	if err != nil {
		t.Fatal(err)
	}
	if p.method != http.MethodPost || title != "worker-1 waits for you · night" || p.header.Get("Tags") != "bell" ||
		p.header.Get("Priority") != "4" || p.header.Get("Click") != "http://night.example:8080/" {
		t.Errorf("request: %s title %q headers %v", p.method, title, p.header)
	}
	for _, want := range []string{"agent: worker-1 task: T060", "Would you like to run the following command?",
		"$ curl -s http://127.0.0.1:9/probe > fetched.txt", "warden answer worker-1 allow-once|deny --dialog ", "page: http://night.example:8080/"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("message lacks %q:\n%s", want, p.body)
		}
	}
	for _, bad := range []string{"1. Yes, proceed", "token", "don't ask again"} {
		if strings.Contains(p.body, bad) {
			t.Errorf("message holds %q:\n%s", bad, p.body)
		}
	}
	waitStats(t, h.n, func(s Stats) bool { return s.Posted == 1 && s.Failed == 0 })
}

// Slack's incoming webhook: {"text": ..., "blocks": [...]}, its mrkdwn
// escaped (a '>' in a command is '&gt;'); and the json format: the
// Message object with the event's line.
func TestSlackAndJSONPosts(t *testing.T) {
	slack, js := newReceiver(t), newReceiver(t)
	h := newHarness(t, []config.Notify{
		urlRule([]string{"agent_waiting"}, slack.srv.URL+"/services/T/B/x", config.NotifySlack),
		urlRule([]string{"*"}, js.srv.URL, config.NotifyJSON),
	}, clock.Real{}, 1, 8)
	h.n.Notify(codexWaiting("worker-2"))
	p := slack.next(t)
	var sb struct {
		Text   string           `json:"text"`
		Blocks []map[string]any `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(p.body), &sb); err != nil || p.header.Get("Content-Type") != "application/json" {
		t.Fatalf("slack body %q: %v", p.body, err)
	}
	if !strings.Contains(sb.Text, "worker-2 waits for you") || !strings.Contains(sb.Text, "$ curl -s http://127.0.0.1:9/probe &gt; fetched.txt") ||
		strings.Contains(sb.Text, "1. Yes, proceed") || len(sb.Blocks) < 2 || sb.Blocks[0]["type"] != "header" {
		t.Errorf("slack body: %s", p.body)
	}
	var m Message
	if err := json.Unmarshal([]byte(js.next(t).body), &m); err != nil {
		t.Fatal(err)
	}
	if m.Event != "agent_waiting" || m.Agent != "worker-2" || m.Task != "T060" || m.Team != "night" ||
		!strings.HasPrefix(m.Question, "Would you like to run") || len(m.DialogID) != 10 || !strings.Contains(string(m.Data), `"session_id":"abc"`) {
		t.Errorf("json message: %+v", m)
	}
}

// A receiver that fails is retried with backoff (1 s, then 2 s, on the
// team's clock) until it takes the POST; a 4xx is not retried; failures
// are logged once, and once more when one gets through again.
func TestPostRetriedAndFailuresLoggedOnce(t *testing.T) {
	clk := clock.NewFake(t0)
	rcv := newReceiver(t, 503, 502, 200, 404, 404, 404, 200)
	r := urlRule([]string{"*"}, rcv.srv.URL, config.NotifyJSON)
	r.MinInterval = 0
	h := newHarness(t, []config.Notify{r}, clk, 1, 8)
	h.n.Notify(event("agent_failed", "w1", "T1"))
	rcv.next(t)
	for _, backoff := range []time.Duration{time.Second, 2 * time.Second} {
		waitWaiters(t, clk)
		clk.Advance(backoff - time.Millisecond)
		rcv.none(t, 50*time.Millisecond) // not before its time
		clk.Advance(time.Millisecond)
		rcv.next(t)
	}
	waitStats(t, h.n, func(s Stats) bool { return s.Posted == 1 && s.Retried == 2 })
	for i := range 3 { // three 404s: not retried, one warning
		h.n.Notify(event("task_failed", "w1", "T"+string(rune('2'+i))))
		rcv.next(t)
	}
	waitStats(t, h.n, func(s Stats) bool { return s.Failed == 3 })
	h.n.Notify(event("team_done", "", ""))
	rcv.next(t)
	waitStats(t, h.n, func(s Stats) bool { return s.Posted == 2 })
	log := h.log.String()
	if n := strings.Count(log, "[WARN]"); n != 1 || !strings.Contains(log, "HTTP 404 Not Found") {
		t.Errorf("%d warnings, want 1 naming the 404:\n%s", n, log)
	}
	if !strings.Contains(log, "notify url reached again") || !strings.Contains(log, "lost_meanwhile=3") {
		t.Errorf("no line when it got through again:\n%s", log)
	}
	if strings.Contains(log, rcv.srv.URL) {
		t.Errorf("the log names the url (its path may be a secret):\n%s", log)
	}
}

// renotify: an agent still waiting is announced again every renotify,
// past min_interval, saying how long it has waited, until its wait ends
// (agent_resumed); another agent's end leaves it alone.
func TestRenotifyUntilAnswered(t *testing.T) {
	clk := clock.NewFake(t0)
	rcv := newReceiver(t)
	r := urlRule([]string{"agent_waiting"}, rcv.srv.URL, config.NotifyJSON)
	r.Renotify = 30 * time.Minute
	h := newHarness(t, []config.Notify{r}, clk, 1, 8)
	h.n.Notify(codexWaiting("worker-1"))
	var m Message
	json.Unmarshal([]byte(rcv.next(t).body), &m)
	if m.Again != 0 || m.Title != "worker-1 waits for you · night" {
		t.Errorf("first: %+v", m)
	}
	for i := 1; i <= 2; i++ {
		clk.Advance(30*time.Minute - time.Second)
		rcv.none(t, 50*time.Millisecond)
		if i == 2 {
			h.n.Notify(event("agent_resumed", "worker-2", "T9")) // not this agent's
		}
		clk.Advance(time.Second)
		json.Unmarshal([]byte(rcv.next(t).body), &m)
		want := (time.Duration(i) * 30 * time.Minute).String()
		if m.Again != i || m.Waited != want || m.Title != "worker-1 still waits for you ("+want+") · night" || !strings.HasPrefix(m.Question, "Would you like") {
			t.Errorf("renotify %d: %+v", i, m)
		}
	}
	h.n.Notify(event("agent_resumed", "worker-1", "T060"))
	clk.Advance(2 * time.Hour)
	rcv.none(t, 100*time.Millisecond)
}

func waitWaiters(t *testing.T, clk *clock.Fake) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for clk.Waiters() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("nothing waits on the clock")
		}
		time.Sleep(time.Millisecond)
	}
}

func waitStats(t *testing.T, n *Notifier, ok func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(n.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", n.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// A dialog announced before the screen was read (the CLI's status report:
// "the CLI reports it is blocked on the user") is told with the question
// the screen gives a moment later (at the notifier's next look), and its id,
// posted as soon as the screen has it.
func TestWaitingPostTellsTheScreensQuestion(t *testing.T) {
	rcv := newReceiver(t)
	h := newHarness(t, []config.Notify{urlRule([]string{"agent_waiting"}, rcv.srv.URL, config.NotifyJSON)}, clock.Real{}, 1, 8)
	screen := "Would you like to run the following command?\n$ curl -s http://127.0.0.1:9/probe > fetched.txt\n› 1. Yes, proceed (y)\n2. No (esc)"
	var looks atomic.Int32
	h.n.SetDialogs(func(agent string) string {
		if agent == "worker-1" && looks.Add(1) > 1 {
			return screen
		}
		return "the CLI reports it is blocked on the user"
	})
	line := `{"event":"agent_waiting","agent":"worker-1","task":"T1","kind":"other","text":"the CLI reports it is blocked on the user","on_screen":false}`
	h.n.Notify(Event{Name: "agent_waiting", Agent: "worker-1", Task: "T1", JSON: []byte(line + "\n")})
	var m Message
	p := rcv.next(t)
	if err := json.Unmarshal([]byte(p.body), &m); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Question, "Would you like to run the following command?") || strings.Contains(m.Question, "1. Yes") ||
		m.DialogID != profile.DialogID(screen) {
		t.Errorf("message: %+v", m)
	}
	if n := looks.Load(); n != 2 {
		t.Errorf("the dialog was read %d times, want 2: posted once the screen had it", n)
	}
}

// A dialog announced by the CLI's status report before the screen shows it
// is told with the id agent_waiting gave it, which warden answer takes
// once the screen shows the dialog too — never its text's ("the CLI reports
// it is blocked on the user" is every such dialog's text), which it then
// refuses as stale.
func TestWaitingPostCarriesTheEventsDialogID(t *testing.T) {
	rcv := newReceiver(t)
	h := newHarness(t, []config.Notify{urlRule([]string{"agent_waiting"}, rcv.srv.URL, config.NotifyJSON)}, clock.Real{}, 1, 8)
	line := `{"event":"agent_waiting","agent":"worker-1","task":"T1","kind":"other","text":"the CLI reports it is blocked on the user","dialog_id":"5f0e2a9c41","on_screen":false}`
	h.n.Notify(Event{Name: "agent_waiting", Agent: "worker-1", Task: "T1", JSON: []byte(line + "\n")})
	var m Message
	if err := json.Unmarshal([]byte(rcv.next(t).body), &m); err != nil {
		t.Fatal(err)
	}
	if m.DialogID != "5f0e2a9c41" || !strings.Contains(m.Text, "--dialog 5f0e2a9c41") {
		t.Errorf("message: %+v", m)
	}
}
