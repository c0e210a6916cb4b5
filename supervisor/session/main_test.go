package session

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
)

// TestMain lets the test binary be a fake agent.
func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

// quietReporter takes a session's reports and keeps none.
type quietReporter struct{}

func (quietReporter) Event(string, ...any)                {}
func (quietReporter) Printf(string, ...any)               {}
func (quietReporter) Started(*Session)                    {}
func (quietReporter) Record(*protocol.Checkpoint) Verdict { return Verdict{Saved: true} }
func (quietReporter) Amend(*protocol.Checkpoint) bool     { return true }
func (quietReporter) Gauge(float64)                       {}
func (quietReporter) Paused(time.Time)                    {}
func (quietReporter) Complete()                           {}
func (quietReporter) Stopping()                           {}
func (quietReporter) Waiting(*profile.Dialog)             {}
func (quietReporter) Limit(LimitSign)                     {}
func (quietReporter) LimitOver()                          {}
func newTestTeam() *testTeam                              { return &testTeam{stop: make(chan struct{})} }
func (t *testTeam) LastCall() <-chan struct{}             { return nil }
func (t *testTeam) Cause() string                         { return "" }
func (t *testTeam) Stopping() <-chan struct{}             { return t.stop }
func (t *testTeam) ShutdownCtx() context.Context          { return context.Background() }
func (t *testTeam) Killing() <-chan struct{}              { return nil }

// testTeam is a team that stops when stop is closed.
type testTeam struct{ stop chan struct{} }

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
