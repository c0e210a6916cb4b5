//go:build e2e

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/proctest"
	"github.com/wardenhq/warden/testrig/realcli"
	"github.com/wardenhq/warden/testrig/teamtest"
)

var realCLIs = []string{"claude", "codex", "gemini", "opencode", "qwen", "copilot"} // a held team's agent

// heldCLI is one real CLI as the one agent of a held team (holder = true),
// run by the warden binary offline against a fake provider whose model
// takes think to answer each checkpoint request.
type heldCLI struct {
	cli, team string
	think     time.Duration
	srv       *fakeprovider.Server
	mu        sync.Mutex
	asked     []time.Time // when each checkpoint request reached the model
	firsts    int         // first prompts that reached the model
	cmd       *exec.Cmd
	out       *lines
	past      []*lines // the wardens killed
	stopped   bool
}

// takeBack is what one kill -9 and `warden run` again came to.
type takeBack struct {
	ms        float64 // from the new warden's start to its agent_started
	samePid   bool    // taken_back, with the pid the dead warden had started
	inFlight  int     // the request in flight: its answer's progress
	restarts  int     // agent_started not taken back, agent_restarted
	retyped   int     // requests typed before the answer in flight was recorded
	firstLine bool    // says "taken back mid-turn from the holder"
}

func startHeldCLI(tb testing.TB, cli, bin string, think time.Duration) *heldCLI {
	tb.Helper()
	h := &heldCLI{cli: cli, think: think}
	h.srv = fakeprovider.New(hclog.NewNullLogger(), fakeprovider.Script{Decide: h.decide})
	tb.Cleanup(h.srv.Close)
	root, _ := filepath.EvalSymlinks(tb.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	env, err := realcli.Seed(cli, home, project, h.srv.URL())
	if err != nil {
		tb.Fatal(err)
	}
	var kv []string
	for _, e := range append(env, "HOME="+home, "LANG=C.UTF-8", "TZ=UTC", "CI=false") {
		k, v, _ := strings.Cut(e, "=")
		kv = append(kv, fmt.Sprintf("%q = %q", k, v))
	}
	// A request every few seconds; stale timers far beyond a loaded machine's slowest turn.
	toml := fmt.Sprintf(`name = "takeback"
holder = true
checkpoint_interval = "2s"
checkpoint_timeout = "90s"
shutdown_timeout = "10s"
stale_warning = "10m"
stale_failure = "20m"
idle_after = "0s"
[[agent]]
name = %q
profile = %q
command = [%q]
dir = %q
env = { %s }
[[task]]
id = "T1"
prompt = "Say ready."
`, cli, cli, bin, project, strings.Join(kv, ", "))
	h.team = filepath.Join(root, "team.toml")
	if err := os.WriteFile(h.team, []byte(toml), 0o600); err != nil {
		tb.Fatal(err)
	}
	h.cmd, h.out = runWarden(tb, "run", h.team)
	return h
}

// decide answers each checkpoint request after think with a block of its
// own (progress n for the n-th request), anything else at once.
func (h *heldCLI) decide(r fakeprovider.Request) fakeprovider.Answer {
	if !strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1") {
		if strings.Contains(r.Prompt, "You are running under warden") {
			h.mu.Lock()
			h.firsts++
			h.mu.Unlock()
		}
		return fakeprovider.Answer{Text: "ready"}
	}
	h.mu.Lock()
	h.asked = append(h.asked, time.Now())
	n := len(h.asked)
	h.mu.Unlock()
	time.Sleep(h.think)
	return fakeprovider.Answer{Text: fmt.Sprintf("CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- step %d\nRemaining:\n- the next step\n"+
		"Files Modified: a.go\nEstimated Progress: %d%%\n", n, n)}
}

// model: the checkpoint requests that reached the model, and when the last did.
func (h *heldCLI) model() (int, time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.asked) == 0 {
		return 0, time.Time{}
	}
	return len(h.asked), h.asked[len(h.asked)-1]
}

// round waits for a checkpoint request in the model (typed, not answered,
// and less than half its think time in), kills warden with -9, runs it
// again at once and measures the take-back.
func (h *heldCLI) round(tb testing.TB, wait time.Duration) takeBack {
	tb.Helper()
	var r takeBack
	h.waitUntil(tb, "a checkpoint request in the model", wait, func() bool {
		typed, last := 0, ""
		for _, e := range teamEvents(h.team) {
			switch e["event"] {
			case "checkpoint_requested":
				typed, last = typed+1, "requested"
			case "checkpoint_received":
				last = "received"
			}
		}
		n, at := h.model()
		r.inFlight = n
		return last == "requested" && n >= typed && n > 0 && time.Since(at) < h.think/2
	})
	pids := startedPids(tb, stateOf(h.team))[h.cli]
	before := len(teamEvents(h.team))
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.cmd.Wait()
	start := time.Now()
	h.past = append(h.past, h.out)
	h.cmd, h.out = runWarden(tb, "run", h.team)
	var started map[string]any
	h.waitUntil(tb, "taken back", 60*time.Second, func() bool {
		for _, e := range teamEvents(h.team)[before:] {
			if e["event"] == "agent_started" {
				started = e
				return true
			}
		}
		return false
	})
	r.ms = float64(teamtest.EventTime(tb, started).Sub(start).Microseconds()) / 1000
	pid, _ := started["pid"].(float64)
	r.samePid = started["taken_back"] == true && len(pids) > 0 && int(pid) == pids[len(pids)-1]
	h.waitUntil(tb, fmt.Sprintf("the answer in flight (%d%%) recorded", r.inFlight), 90*time.Second, func() bool {
		for _, e := range teamEvents(h.team)[before:] {
			if e["event"] == "checkpoint_received" && e["progress"] == float64(r.inFlight) {
				return true
			}
		}
		return false
	})
	for _, e := range teamEvents(h.team)[before:] {
		if e["event"] == "checkpoint_received" && e["progress"] == float64(r.inFlight) {
			break
		}
		switch {
		case e["event"] == "checkpoint_requested":
			r.retyped++
		case e["event"] == "agent_restarted", e["event"] == "agent_started" && e["taken_back"] != true:
			r.restarts++
		}
	}
	h.out.waitFor(tb, "CARRYING ON:", 1)
	h.out.mu.Lock()
	r.firstLine = strings.Contains(h.out.all[0], "taken back mid-turn from the holder: "+h.cli+" (T1, pid ")
	h.out.mu.Unlock()
	return r
}

// stop ends the run (warden stop) once; then it counts, over every
// warden of the run, how often each answer was recorded (by progress),
// the restarts, requests that reached the model more often than warden
// typed them (the first prompt included), and rejections (the model's
// answers are all valid: a rejection is something read that is no answer).
func (h *heldCLI) stop(tb testing.TB) (records map[int]int, restarts, retyped, rejected int) {
	tb.Helper()
	if !h.stopped {
		h.stopped = true
		if msg, err := warden("stop", h.team).CombinedOutput(); err != nil {
			tb.Errorf("warden stop: %v\n%s", err, msg)
		}
		h.cmd.Wait()
	}
	records, typed, started := map[int]int{}, 0, 0
	for _, e := range teamEvents(h.team) {
		switch e["event"] {
		case "checkpoint_received":
			p, _ := e["progress"].(float64)
			records[int(p)]++
		case "checkpoint_requested":
			typed++
		case "agent_restarted":
			restarts++
		case "checkpoint_rejected":
			rejected++
		case "agent_started":
			if e["taken_back"] != true {
				started++
			}
		}
	}
	n, _ := h.model()
	h.mu.Lock()
	defer h.mu.Unlock()
	return records, restarts + max(0, started-1), max(0, n-typed) + max(0, h.firsts-1), rejected
}

// said is every line of every warden of the run (stdout and log)
// holding one of words, for a failure's message.
func (h *heldCLI) said(words ...string) string {
	var out []string
	for i, l := range append(slices.Clone(h.past), h.out) {
		for _, line := range strings.Split(l.dump(), "\n") {
			for _, w := range words {
				if strings.Contains(line, w) {
					out = append(out, fmt.Sprintf("warden %d: %s", i+1, line))
					break
				}
			}
		}
	}
	return strings.Join(out, "\n")
}

// waitUntil polls cond for d; then it fails, saying what the model got,
// the checkpoint events and what the warden running said.
func (h *heldCLI) waitUntil(tb testing.TB, what string, d time.Duration, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	var evs []string
	for _, e := range teamEvents(h.team) {
		if n, _ := e["event"].(string); strings.HasPrefix(n, "checkpoint_") || strings.HasPrefix(n, "agent_") {
			evs = append(evs, fmt.Sprint(n, " ", e["progress"], e["trigger"], e["taken_back"]))
		}
	}
	n, _ := h.model()
	screen, _, _ := wardenCmd("screen", h.cli, "--state-dir", stateOf(h.team))
	tb.Fatalf("%s: %s: not within %v; %d checkpoint requests reached the model; events:\n%s\nwarden:\n%s\nthe screen as warden reads it:\n%s",
		h.cli, what, d, n, strings.Join(evs, "\n"), h.out.dump(), screen)
}

// Each real CLI installed, the one agent of a held team, is taken back
// mid-turn once: warden killed with -9 while the model works on a
// checkpoint request, `warden run` again, the same process taken back,
// its answer recorded once, nothing restarted or typed again.
func TestRealCLITakenBackMidTurn(t *testing.T) {
	for _, cli := range realCLIs {
		t.Run(cli, func(t *testing.T) {
			bin, err := realcli.Bin(cli)
			if err != nil {
				t.Skip(err)
			}
			realcli.Hold(t)
			defer proctest.AssertNone(t)
			h := startHeldCLI(t, cli, bin, 3*time.Second)
			defer h.stop(t)
			r := h.round(t, 90*time.Second)
			if cli == "codex" { // its app-server read again by the new warden
				h.waitUntil(t, "the app-server joined again", 60*time.Second, func() bool {
					return strings.Contains(h.said("joined the agent's app-server"), "warden 2: ")
				})
			}
			t.Logf("the new warden:\n%s", h.said("taken back", "attached", "app-server", "carrying on", "holder connected"))
			records, restarts, retyped, rejected := h.stop(t)
			t.Logf("%s taken back in %.0f ms", cli, r.ms)
			if !r.samePid || !r.firstLine || r.restarts+restarts != 0 || r.retyped+retyped != 0 || records[r.inFlight] != 1 || r.ms > 10000 || rejected != 0 {
				t.Errorf("%s: %+v; the answer in flight recorded %d times, restarts %d, re-typed %d, rejected %d; the new warden:\n%s",
					cli, r, records[r.inFlight], restarts, retyped, rejected, h.out.dump())
			}
		})
	}
}
