package supervisor

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/signalfile"
	"github.com/wardenhq/warden/supervisor/state"
)

// signalPoll is the poll of the signal file while its fsnotify watch cannot
// be set up.
const signalPoll = 2 * time.Second

// watchSignalFile turns the appearance of the signal file into a team
// checkpoint; it returns the function that stops watching.
func (t *Team) watchSignalFile() func() {
	w, err := signalfile.New(t.log, t.cfg.SignalFile, signalPoll) // polls alone when fsnotify cannot start
	if err != nil {
		t.log.Error("signal file not watched", "error", err)
		return func() {}
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
	}
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
