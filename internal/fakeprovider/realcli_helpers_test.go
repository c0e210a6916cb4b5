//go:build e2e

package fakeprovider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/fakeprovider/clirun"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/internal/realcli"
	"github.com/wardenhq/warden/protocol/profile"
)

// ready is what each CLI's screen shows once its prompt takes input.
var ready = map[string]string{"claude": "/effort", "codex": "Ask Codex", "gemini": "Type your message"}

// limitRig is one real CLI against a fake provider whose model answers
// every turn "ANSWER n".
type limitRig struct {
	t   *testing.T
	srv *fakeprovider.Server
	cli *clirun.CLI

	mu sync.Mutex
	n  int
}

// startRig starts cli (a claude.ai subscriber for Claude Code) with the
// given extra options and waits for its prompt; the test then checks that
// no process of it is left.
func startRig(t *testing.T, o clirun.Options) *limitRig {
	t.Helper()
	if _, err := realcli.Bin(o.CLI); err != nil {
		t.Skip(err) // not installed (CI installs them)
	}
	realcli.Hold(t)
	t.Cleanup(func() { proctest.AssertNone(t) })
	r := &limitRig{t: t}
	logger := hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Warn})
	r.srv = fakeprovider.New(logger, fakeprovider.Script{Decide: r.decide})
	t.Cleanup(r.srv.Close)
	o.URL, o.Root, o.Logger = r.srv.URL(), t.TempDir(), logger
	c, err := clirun.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	r.cli = c
	t.Cleanup(c.Kill)
	r.wait("the prompt", 60*time.Second, func(s string) bool { return strings.Contains(s, ready[o.CLI]) })
	time.Sleep(time.Second)
	return r
}

func (r *limitRig) decide(fakeprovider.Request) fakeprovider.Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	return fakeprovider.Answer{Text: fmt.Sprintf("ANSWER %d", r.n), InputTokens: 20000 + r.n, OutputTokens: 40}
}

// submit types text once the CLI is at a turn boundary, as its profile
// reads the screen — typed while the last turn still drew, it can be lost
// — the way warden types (profile.Submit: a Gemini CLI still initializing
// under load took the Enter of a bare paste-and-Enter for part of the
// paste, and the text sat in its box); into a dialog (Codex's model-switch
// dialog, opened when the last turn's side call met the window), which
// Submit refuses, it is typed as a paste and Enter.
func (r *limitRig) submit(text string) {
	r.t.Helper()
	p, err := profile.For(r.cli.Name)
	if err != nil {
		r.t.Fatal(err)
	}
	// What Submit saw, said (seen once: Codex took no turn after a Submit
	// that returned nil).
	p = p.WithLogger(hclog.New(&hclog.LoggerOptions{Name: r.t.Name(), Level: hclog.Info}))
	dialog := false
	r.wait("a turn boundary", 30*time.Second, func(s string) bool {
		_, dialog = p.Dialog(textScreen(s))
		return dialog || p.TurnEnded(textScreen(s))
	})
	if dialog {
		err = r.cli.Submit(text)
	} else {
		err = p.Submit(context.Background(), cliWriter{r.cli}, func() profile.Screen { return textScreen(r.cli.Screen()) }, text)
	}
	if err != nil {
		r.t.Fatal(err)
	}
}

// cliWriter writes to the CLI's terminal.
type cliWriter struct{ c *clirun.CLI }

func (w cliWriter) Write(p []byte) (int, error) {
	if err := w.c.Write(string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (r *limitRig) wait(what string, d time.Duration, cond func(screen string) bool) {
	r.t.Helper()
	if err := r.cli.WaitFor(what, d, cond); err != nil {
		r.t.Fatal(err)
	}
}

// textScreen is a screen's text as a profile reads it.
type textScreen string

func (s textScreen) Rows() []string  { return strings.Split(string(s), "\n") }
func (s textScreen) Bracketed() bool { return true }

// waitRows waits until the screen shows every text.
func (r *limitRig) waitRows(d time.Duration, texts ...string) string {
	r.t.Helper()
	var screen string
	r.wait(fmt.Sprintf("%q", texts), d, func(s string) bool {
		screen = s
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
	return screen
}

// turns lists the CLI's own model requests (no side call) answered or
// refused, oldest first.
func (r *limitRig) turns() fakeprovider.Ledger {
	return r.srv.Ledger().Where(func(q fakeprovider.Request) bool { return !q.Side && q.Answered != "static" })
}

// resetNear is a reset about d from now, 30 s past a minute: a clock shown
// to the minute reads the same however a CLI rounds.
func resetNear(d time.Duration) time.Time {
	now := time.Now()
	r := now.Add(d).Truncate(time.Minute).Add(30 * time.Second)
	if r.Sub(now) < d/2 { // at :29 it was a second away, closed before the turn was typed
		r = r.Add(time.Minute)
	}
	return r
}

// capture is a shell command that saves its stdin as a new JSON file in
// dir, named for its kind and the time (a status line or a hook).
func capture(dir, kind string) string {
	return fmt.Sprintf(`cat > %s/%s-$(date +%%s%%N).json`, dir, kind)
}

// captured returns the JSON objects saved by capture for kind, oldest
// first, each with the time it was saved.
func captured(t *testing.T, dir, kind string) []map[string]any {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, kind+"-*.json"))
	sort.Strings(m)
	var out []map[string]any
	for _, p := range m {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if json.Unmarshal(b, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// dig walks nested maps: dig(m, "a", "b").
func dig(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// readRollout returns the lines of the Codex session's rollout file.
func readRollout(t *testing.T, home string) []map[string]any {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(m) != 1 {
		t.Fatalf("rollout files: %v", m)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(string(b), "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}
