package session

import (
	"context"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// quietReporter takes a session's reports and keeps none.
type quietReporter struct{}

func (quietReporter) Event(string, ...any)                {}
func (quietReporter) Printf(string, ...any)               {}
func (quietReporter) Started(*Session)                    {}
func (quietReporter) Prompted()                           {}
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
