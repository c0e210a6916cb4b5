//go:build !e2e

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/tokenfile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// tokcli is a CLI warden does not ship, registered as one file would: its
// hook names a token file it writes later (as Codex names a thread whose
// rollout file comes after), each line of it "tokens N".
const tokCLI, tokCLIDone = "tokcli", "tokcli-done"

func init() {
	profile.Register(profile.CLI{Name: tokCLI, Kinds: []string{tokCLIDone},
		Hook: func(_ string, payload []byte) profile.HookFacts {
			return profile.HookFacts{UsageCLI: tokCLI, UsageThread: strings.TrimSpace(string(payload))}
		},
		Tokens: &profile.TokenFiles{
			File: func(f profile.HookFacts, env []string) (string, string, bool) {
				p := filepath.Join(envOf(env, "TOKCLI_HOME"), f.UsageThread+".log")
				if _, err := os.Stat(p); err != nil {
					return f.UsageThread, "", true
				}
				return f.UsageThread, p, true
			},
			Reader: func(p string) tokenfile.Reader { return tokLog(p) },
		}})
}

func envOf(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, _ := strings.Cut(kv, "="); k == name {
			v = val
		}
	}
	return v
}

// tokLog reads a tokcli log whole at each call.
type tokLog string

func (l tokLog) Read() (tokenfile.Report, error) {
	b, err := os.ReadFile(string(l))
	var t protocol.Tokens
	for _, line := range strings.Split(string(b), "\n") {
		var n int64
		if _, e := fmt.Sscanf(line, "tokens %d", &n); e == nil {
			t.Output += n
		}
	}
	return tokenfile.Report{Tokens: t, ByModel: map[string]tokenfile.Tokens{"tok-1": t}, Files: []string{string(l)}}, err
}

// A new CLI's token files are found and read through its profile alone:
// the session names no CLI. The file named before it exists is looked for
// again at each read, then read.
func TestANewCLIsTokenFilesAreReadThroughItsProfile(t *testing.T) {
	home := t.TempDir()
	fc := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	r := &spendReporter{}
	s := New(hclog.NewNullLogger(), Config{Agent: "w", Profile: tokCLI, Clock: fc, Report: r, Team: newTestTeam(),
		Task: &config.Task{ID: "T1"}, Timers: benchTimers, Env: []string{"TOKCLI_HOME=" + home}})
	defer close(s.ended) // the usage poller's end
	s.onHook(hookbus.Message{Agent: "w", Kind: tokCLIDone, Payload: []byte("th-1")})
	if len(s.use.waiting) != 1 || !s.use.polling.Load() {
		t.Fatalf("the file named before it exists: waiting %v, polling %v", s.use.waiting, s.use.polling.Load())
	}
	os.WriteFile(filepath.Join(home, "th-1.log"), []byte("tokens 120\ntokens 30\n"), 0o600)
	s.use.due.Store(true) // the poller's ring
	s.usageTick()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.figs) == 0 || r.figs[len(r.figs)-1].Tokens.Output != 150 {
		t.Fatalf("figures handed over: %+v, want 150 output tokens read from the tokcli file", r.figs)
	}
	if len(s.use.waiting) != 0 {
		t.Errorf("still waiting for %v", s.use.waiting)
	}
}
