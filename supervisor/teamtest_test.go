//go:build e2e

package supervisor

import (
	"testing"

	"github.com/wardenhq/warden/internal/teamtest"
)

// The helpers these tests share with supervisor/realclis (internal/teamtest).
var (
	testLogger    = teamtest.Logger
	eventsOf      = teamtest.EventsOf
	readEvents    = teamtest.ReadEvents
	readSnapshot  = teamtest.ReadSnapshot
	eventTime     = teamtest.EventTime
	countEvents   = teamtest.CountEvents
	eventsBetween = teamtest.EventsBetween
	firstEvent    = teamtest.FirstEvent
	whileWaiting  = teamtest.WhileWaiting
	waitForD      = teamtest.WaitFor
	procState     = teamtest.ProcState
	anyStrings    = teamtest.AnyStrings
	mostAtOnce    = teamtest.MostAtOnce
	watchStates   = teamtest.WatchStates
	realCLI       = teamtest.RealCLI
	seed          = teamtest.Seed
	buildWarden   = teamtest.BuildWarden
)

// syncBuffer is warden's stdout in tests.
type syncBuffer = teamtest.Buffer

// useWardenBin builds cmd/warden (once per test binary) and sets WARDEN_BIN
// for tb: the fake and real CLIs' hooks run it as `warden hook KIND`.
func useWardenBin(tb testing.TB) {
	tb.Helper()
	warden, err := buildWarden()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("WARDEN_BIN", warden)
}
