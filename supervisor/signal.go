package supervisor

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/signalfile"
	"github.com/wardenhq/warden/supervisor/state"
)

// signalPoll is the poll of the signal file while its fsnotify watch cannot
// be set up.
const signalPoll = 2 * time.Second

// watchSignalFile turns the appearance of the signal file into a team
// checkpoint; it returns the function that stops watching, or why the file
// cannot be watched. Once set up the watch does not fail: it polls while
// fsnotify cannot watch.
func (t *Team) watchSignalFile() (func(), error) {
	w, err := signalfile.New(t.log, t.cfg.SignalFile, signalPoll) // polls alone when fsnotify cannot start
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-w.C():
				t.SignalFileAppeared()
			case <-stop:
				return
			}
		}
	}()
	return func() {
		close(stop)
		w.Close()
	}, nil
}

// SignalFileAppeared asks for a team checkpoint because the signal file
// appeared (its watch calls it; so does the simulation, which writes the
// file itself), with the cause and reason the file gives, if any.
func (t *Team) SignalFileAppeared() {
	tr := trigger{source: "signal_file", cause: protocol.CauseSignalFile,
		reason: fmt.Sprintf("signal file %s appeared", filepath.Base(t.cfg.SignalFile))}
	if cause, reason, ok := state.ReadSignal(t.cfg.SignalFile); ok {
		tr.cause, tr.reason = cause, reason
	}
	t.trigger(tr)
}

// drainTriggers drops pending team checkpoint requests.
func (t *Team) drainTriggers() {
	for {
		select {
		case <-t.triggers:
		default:
			return
		}
	}
}

// SignalWindow is how close to the signal that began a stop another stop
// signal must come to be the same request: a signal within it is that
// request again, one after it a second request, which forces the stop.
const SignalWindow = time.Second

// StopRequest is what a stop signal asks for (StopSignals.Take).
type StopRequest int

const (
	// StopClean: the first stop signal — a clean stop, a team checkpoint.
	StopClean StopRequest = iota + 1
	// StopSame: a signal within SignalWindow of the first, the same
	// request delivered again: nothing more to do.
	StopSame
	// StopForce: a second request, after SignalWindow: force the stop.
	StopForce
)

// StopSignals decides what each stop signal warden receives (INT, TERM,
// HUP) asks for. The first asks for a clean stop. One that comes within
// SignalWindow of it is the same request delivered twice — a terminal's
// Ctrl-C reaches every process of its foreground group, and a wrapper
// such as `timeout` forwards the signal it got to warden (and to its
// group), so one keypress under `timeout 8h warden run` arrives two or
// three times within milliseconds. Any signal after that window is a
// second request: it forces the stop (a person pressing Ctrl-C again).
type StopSignals struct {
	clock clock.Clock

	mu    sync.Mutex
	first time.Time // when the first stop signal came (zero: none yet)
}

// NewStopSignals returns a StopSignals telling time by clk.
func NewStopSignals(clk clock.Clock) *StopSignals { return &StopSignals{clock: clk} }

// Take is what a stop signal received now asks for.
func (s *StopSignals) Take() StopRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	switch {
	case s.first.IsZero():
		s.first = now
		return StopClean
	case now.Sub(s.first) <= SignalWindow:
		return StopSame
	}
	return StopForce
}
