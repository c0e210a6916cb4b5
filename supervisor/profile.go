package supervisor

import (
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// plainSettle is how long a plain agent's output must be quiet before the
// reader takes a block whose last line has arrived: lines are never
// repainted, so a few milliseconds suffice (detection latency, README).
const plainSettle = 5 * time.Millisecond

// profileFor returns the agent's profile (protocol/profile), tuned for the
// supervisor. The team file was validated, so the name is known.
func profileFor(name string, logger hclog.Logger) *profile.Profile {
	p, err := profile.For(name)
	if err != nil {
		p, _ = profile.For("plain")
	}
	if p.Mode == protocol.ModeLines {
		p.Settle = plainSettle
	}
	return p.WithLogger(logger)
}

// turnQuiet is the output silence after which the monitor may type a
// request: the plain profile's TurnQuiet; a TUI's settle time, after which
// the screen itself must show the turn ended.
func turnQuiet(p *profile.Profile) time.Duration {
	if p.Mode == protocol.ModeLines {
		return p.TurnQuiet
	}
	return p.Settle
}

// screenView is what the profile sees of a session: the reader's visible
// rows and whether the agent enabled bracketed paste.
type screenView struct {
	rows      []string
	bracketed bool
}

func (v screenView) Rows() []string  { return v.rows }
func (v screenView) Bracketed() bool { return v.bracketed }

// modes follows the agent's terminal modes (bracketed paste) in its raw
// output, safely for the reader and the typist goroutines.
type modes struct {
	mu sync.Mutex
	t  profile.ModeTracker
}

func (m *modes) Write(p []byte) {
	m.mu.Lock()
	m.t.Write(p)
	m.mu.Unlock()
}

func (m *modes) bracketed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t.Bracketed()
}
