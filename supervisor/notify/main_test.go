package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/config"
)

// helperArg as the first argument makes the test binary a notify command:
// `notify.test notify-test-helper MODE DIR`.
const helperArg = "notify-test-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 3 && os.Args[1] == helperArg {
		os.Exit(helper(os.Args[2], os.Args[3]))
	}
	// Every command inherits the owner mark (proctest finds leftovers by it)
	// and a race-enabled helper does not sleep 1 s at exit.
	_ = os.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid()))
	_ = os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// record is what the "record" helper saw: when it started, its stdin, and
// the WARDEN_ variables of its environment.
type record struct {
	Start int64             `json:"start"` // UnixNano, the helper's first instruction
	Stdin string            `json:"stdin"`
	Env   map[string]string `json:"env"`
}

// helper runs a helper mode, writing DIR/$WARDEN_TASK.json:
// "record" the whole record, "stamp" only the start time.
func helper(mode, dir string) int {
	start := time.Now().UnixNano()
	rec := record{Start: start, Env: map[string]string{}}
	if mode == "record" {
		in, _ := io.ReadAll(os.Stdin)
		rec.Stdin = string(in)
		for _, kv := range os.Environ() {
			if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "WARDEN_") {
				rec.Env[k] = v
			}
		}
	}
	b, _ := json.Marshal(rec)
	path := filepath.Join(dir, os.Getenv(EnvTask)+".json")
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func pid() int { return os.Getpid() }

// helperCommand is the argv of a helper mode writing into dir.
func helperCommand(t testing.TB, mode, dir string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, helperArg, mode, dir}
}

func readRecord(t testing.TB, dir, task string) record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, task+".json"))
	if err != nil {
		t.Fatalf("helper record: %v", err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("helper record %s: %v", b, err)
	}
	return rec
}

// syncBuffer is a log destination that tests read while workers write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// harness is a notifier under test with its results and its log.
type harness struct {
	n       *Notifier
	results chan result
	log     *syncBuffer
}

// newHarness starts a notifier; at the end of the test it is closed and
// every process it started must be gone.
func newHarness(t testing.TB, rules []config.Notify, clk clock.Clock, workers, queue int) *harness {
	t.Helper()
	h := &harness{results: make(chan result, 1000), log: &syncBuffer{}}
	logger := hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Debug, Output: h.log})
	h.n = newNotifier(logger, "night", rules, clk, workers, queue)
	h.n.mu.Lock()
	h.n.afterRun = func(r result) { h.results <- r }
	h.n.mu.Unlock()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.n.Close(ctx); err != nil {
			t.Errorf("Close at cleanup: %v", err)
		}
		proctest.AssertNone(t)
	})
	return h
}

// next waits for the next run's result.
func (h *harness) next(t testing.TB) result {
	t.Helper()
	select {
	case r := <-h.results:
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("no notify run finished within 10s; log:\n%s", h.log)
		return result{}
	}
}

// none checks that no further run finishes within a short while.
func (h *harness) none(t testing.TB) {
	t.Helper()
	select {
	case r := <-h.results:
		t.Fatalf("unexpected run for %s/%s (suppressed %d)", r.ev.Name, r.ev.Agent, r.suppressed)
	case <-time.After(100 * time.Millisecond):
	}
}

// event builds an Event with the JSON line the supervisor would write.
func event(name, agent, task string) Event {
	line := fmt.Sprintf(`{"agent":%q,"event":%q,"task":%q,"ts":"2026-05-03T22:15:00Z"}`, agent, name, task)
	return Event{Name: name, Agent: agent, Task: task, JSON: []byte(line + "\n")}
}

// rule is a [[notify]] rule with the decoder's defaults.
func rule(events []string, command []string) config.Notify {
	r := config.NotifyDefaults()
	r.Events, r.Command = events, command
	r.Pos = config.Position{File: "team.toml", Line: 12, Col: 1}
	return r
}

// waitFile waits for path to exist and returns its content.
func waitFile(t testing.TB, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && bytes.HasSuffix(b, []byte("\n")) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 10s", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
