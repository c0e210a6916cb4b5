package teamtest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/fakeagent"
)

// Agent is one [[agent]] running the test binary as a fake agent.
type Agent struct {
	Name, Mode, Restart string
	MaxRestarts         int
	Profile             string
	Dir                 string // "" is the team file's dir
	Lead                bool
}

// WriteTeam writes a team file of fake agents into a temp dir and loads it
// through the real decoder.
func WriteTeam(t testing.TB, header string, agents ...Agent) *config.Team {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "name = %q\n%s\n", strings.ReplaceAll(t.Name(), "/", "_"), header)
	for _, a := range agents {
		argv := fakeagent.Command(a.Mode)
		q := make([]string, len(argv))
		for i, s := range argv {
			q[i] = fmt.Sprintf("%q", s)
		}
		fmt.Fprintf(&b, "\n[[agent]]\nname = %q\ncommand = [%s]\n", a.Name, strings.Join(q, ", "))
		fmt.Fprintf(&b, "env = {")
		for i, kv := range fakeagent.Env(a.Mode) {
			k, v, _ := strings.Cut(kv, "=")
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s = %q", k, v)
		}
		b.WriteString("}\n")
		if a.Profile != "" {
			fmt.Fprintf(&b, "profile = %q\n", a.Profile)
		}
		if a.Lead {
			b.WriteString("lead = true\n")
		}
		if a.Dir != "" {
			fmt.Fprintf(&b, "dir = %q\n", a.Dir)
		}
		if a.Restart != "" {
			fmt.Fprintf(&b, "restart = %q\nmax_restarts = %d\n", a.Restart, a.MaxRestarts)
		}
	}
	path := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("team file:\n%s\n%v", b.String(), err)
	}
	return cfg
}

// Logger logs into the test's log, at debug.
func Logger(t testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Debug, Output: testWriter{t}})
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// WaitFor polls cond every 10 ms for up to d; then the test fails.
func WaitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Buffer is warden's stdout in tests.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WatchStates polls state.json while the team runs and returns a function
// that stops it and says whether some agent was seen in state admission
// with a reason holding want.
func WatchStates(t testing.TB, cfg *config.Team, want string) func() bool {
	seen := WatchSnapshots(t, cfg, func(snap *state.Snapshot) string {
		for _, a := range snap.Agents {
			if a.State == state.Admission && strings.Contains(a.Reason, want) {
				return a.Name
			}
		}
		return ""
	})
	return func() bool { return seen() != "" }
}

// WatchSnapshots polls state.json every 20 ms while the team runs and
// returns a function that stops it and gives the last non-empty word of
// match about a snapshot ("" if none).
func WatchSnapshots(t testing.TB, cfg *config.Team, match func(*state.Snapshot) string) func() string {
	var seen atomic.Value
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if snap, err := state.ReadSnapshot(cfg.StateDir); err == nil {
				if w := match(snap); w != "" {
					seen.Store(w)
				}
			}
		}
	}()
	return func() string {
		close(stop)
		<-done
		w, _ := seen.Load().(string)
		return w
	}
}

// ProcState is the state letter of process pid ('T': stopped), or 0.
func ProcState(pid int) byte {
	b, err := os.ReadFile("/proc/" + fmt.Sprint(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2]
	}
	return 0
}

// QuietReaper starts the runner's reaper, which keeps the logger of the
// first process started, with one of its own: with a test's, an orphan of a
// real CLI reaped after that test ended would log into it (a panic). Call it
// from TestMain.
func QuietReaper() {
	log := hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Warn, Output: os.Stderr})
	if p, err := runner.Start(log, runner.Config{Name: "reaper", Argv: []string{"true"}, Output: io.Discard}); err == nil {
		p.Wait()
	}
}
