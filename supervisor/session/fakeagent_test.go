//go:build e2e

package session

import (
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/runner"
)

// TestMain lets the test binary be a fake agent.
func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

// startSession runs a session of the fake agent in mode (no task: nothing
// is typed) and returns it once its process runs, and a channel that gets
// its outcome.
func startSession(t *testing.T, cfg Config) (*Session, <-chan Outcome) {
	t.Helper()
	return startSessionLogged(t, cfg, hclog.NewNullLogger())
}

// startSessionLogged is startSession with the session's log to logger.
func startSessionLogged(t *testing.T, cfg Config, logger hclog.Logger) (*Session, <-chan Outcome) {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Timers.ShutdownTimeout == 0 {
		cfg.Timers.ShutdownTimeout = 2 * time.Second
	}
	if cfg.Report == nil {
		cfg.Report = quietReporter{}
	}
	s := New(logger, cfg)
	out := make(chan Outcome, 1)
	go func() {
		_, o := s.Run()
		out <- o
	}()
	select {
	case <-s.procReady:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not start")
	}
	if s.proc == nil {
		t.Fatal("the agent did not start")
	}
	return s, out
}

// fakeSession is the Config of a session of the fake agent in mode.
func fakeSession(agent, mode, prof string, size runner.Size) Config {
	return Config{Agent: agent, Profile: prof, Argv: fakeagent.Command(mode), Env: fakeagent.Env(mode), Size: size}
}
