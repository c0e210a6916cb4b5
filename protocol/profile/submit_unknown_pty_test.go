//go:build e2e

package profile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
)

// keyLog is what warden wrote to the fake's terminal.
type keyLog struct {
	mu  sync.Mutex
	w   *os.File
	out strings.Builder
}

func (k *keyLog) Write(b []byte) (int, error) {
	k.mu.Lock()
	k.out.Write(b)
	k.mu.Unlock()
	return k.w.Write(b)
}

func (k *keyLog) String() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.out.String()
}

// liveScreen is the fake's screen now, its whole output run through the
// screen emulator.
func liveScreen(t *testing.T, f *fakeSession) staticScreen {
	scr := protocol.NewScreen(testLogger(t), 200, 50, nil)
	defer scr.Close()
	var modes ModeTracker
	out := []byte(f.output())
	_, _ = scr.Write(out)
	_, _ = modes.Write(out)
	rows := scr.Rows()
	s := staticScreen{rows: make([]string, len(rows)), bracketed: modes.Bracketed()}
	for i, r := range rows {
		s.rows[i] = r.Text
	}
	return s
}

// TestNoKeyReachesAnUnknownDialog is TestNoKeyIntoAnUnknownScreen under a
// real pty, for every profile: the fake TUI (tui-unknown) draws a dialog in
// words no profile knows in place of its box right after the first Enter
// and logs every key it gets after that. Up to the Enter the profile sees
// its own CLI's recorded screens (the box empty, then holding the request);
// from the dialog on, the fake's real screen. 0 keys reach the dialog.
func TestNoKeyReachesAnUnknownDialog(t *testing.T) {
	for _, cli := range Names() {
		p := mustProfile(t, cli)
		if p.tui == nil {
			continue // plain: the line and its newline in one write (TestPlainSubmitAndQuit)
		}
		t.Run(cli, func(t *testing.T) {
			r := newUnknownRig(t, p, cli)
			log := filepath.Join(t.TempDir(), "keys.log")
			f := startFake(t, "tui-unknown:"+log)
			p.EnterDelay, p.SubmitWindow = 20*time.Millisecond, 100*time.Millisecond
			w := &keyLog{w: f.ptmx}
			drawn := func() bool { b, _ := os.ReadFile(log); return strings.Contains(string(b), "DIALOG ") }
			screen := func() Screen {
				switch typed := w.String(); {
				case drawn():
					return liveScreen(t, f)
				case typed != "" && !strings.Contains(typed, "\r"):
					return r.held
				case typed != "":
					return r.held // Enter written, the dialog not drawn yet
				}
				return r.ready
			}
			err := p.Submit(context.Background(), w, screen, r.text)
			if !drawn() {
				t.Fatalf("the fake never drew its dialog (Submit = %v)", err)
			}
			time.Sleep(300 * time.Millisecond) // a late key would be logged by now
			b, _ := os.ReadFile(log)
			if n := strings.Count(string(b), "\nKEY "); n != 0 || !errors.Is(err, ErrNotSubmitted) {
				t.Errorf("Submit = %v; %d keys reached the dialog:\n%s", err, n, b)
			}
			if _, ok := p.Unknown(liveScreen(t, f)); !ok && errors.Is(err, ErrUnknownScreen) {
				t.Errorf("ErrUnknownScreen, but Unknown does not read the fake's screen")
			}
		})
	}
}
