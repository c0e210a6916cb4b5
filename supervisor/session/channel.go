package session

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/channel/codexapp"
)

// Channel attaches an agent's TUI to the app-server its profile names
// (profile.AppServer: Codex's), which warden starts beside it in its
// process group (the profile's launcher, warden codex-remote), and reads
// the TUI's thread as a second client: approval requests, turns, limits
// and token counts as messages, sooner than the screen shows them. It
// never answers a request. The screen stays read as before: it is the
// fallback when the channel fails, and the record.
type Channel struct {
	Socket string   // the app-server's unix socket
	Launch []string // what starts both: warden codex-remote --socket S --log F --
	// Attach is the TUI of a command line attached to Socket
	// (profile.AppServer.Attach).
	Attach func(tui []string, sock string) []string
}

// channelJoin bounds the wait for the app-server's socket: a launcher
// that fell back to the TUI alone makes none.
const channelJoin = 45 * time.Second

// appChannel is what the loop knows of the channel.
type appChannel struct {
	up   bool // connected: its requests say when the agent waits
	turn bool // a turn runs, as the channel says (between turn/started and turn/completed)
	// For the answering goroutines (answerdecision.go): the connection,
	// and the request the agent waits on.
	client  atomic.Pointer[codexapp.Client]
	pending atomic.Pointer[pendingRequest]
	// stop is Codex's typed reason the last turn stopped on, with its
	// message (nil: none, or a turn completed since): CLIStop.
	stop atomic.Pointer[string]
}

// CLIStop is the typed reason Codex's last turn stopped on, in its own
// word and message ("tooManyDenials: …"), "" when none or when a turn has
// completed since: the agent's end (agent_failed, agent_restarted) names
// it beside its own reason.
func (s *Session) CLIStop() string {
	if p := s.app.stop.Load(); p != nil {
		return *p
	}
	return ""
}

// channelArgv is what runs under the pty: the launcher, then the TUI
// attached to the socket.
func (c *Channel) argv(tui []string) []string {
	return append(slices.Clone(c.Launch), c.Attach(tui, c.Socket)...)
}

// joinChannel connects to the app-server once its socket is there, checks
// that the process listening is the agent's own (in its session: one
// started by the launcher), and hands what it reads to the loop until the
// connection ends. Run's end closes it.
func (s *Session) joinChannel() {
	c := s.cfg.Channel
	deadline := s.cfg.Clock.Now().Add(channelJoin)
	var client *codexapp.Client
	for {
		var err error
		client, err = codexapp.Dial(c.Socket)
		if err == nil && !s.proc.Owns(client.Peer()) {
			client.Close()
			err = fmt.Errorf("the process listening on it (pid %d) is not one of the agent's", client.Peer())
			s.log.Warn("app-server refused: reading the screen only", "socket", c.Socket, "error", err)
			return
		}
		if err == nil {
			break
		}
		select {
		case <-s.ended:
			return
		case <-s.proc.Done():
			return
		case <-s.cfg.Clock.After(50 * time.Millisecond):
		}
		if s.cfg.Clock.Now().After(deadline) {
			s.log.Warn("no app-server to join: reading the screen only", "socket", c.Socket, "error", err)
			return
		}
	}
	s.log.Info("joined the agent's app-server", "socket", c.Socket, "pid", client.Peer())
	s.app.client.Store(client)
	s.push(readerEvent{channel: &codexapp.Event{Kind: channelUp}})
	go func() {
		<-s.ended
		client.Close()
	}()
	for e := range client.Events() {
		s.push(readerEvent{channel: &e})
	}
	s.app.client.Store(nil)
	s.push(readerEvent{channel: &codexapp.Event{Kind: channelGone, Text: fmt.Sprint(client.Err())}})
}

// The events the joiner adds: connected, and the connection ended.
const (
	channelUp   codexapp.Kind = "up"
	channelGone codexapp.Kind = "gone"
)

// onChannel handles one message of the channel on the loop.
func (s *Session) onChannel(e codexapp.Event) {
	switch e.Kind {
	case codexapp.Waiting:
		d := profile.Dialog{Kind: requestKind(e.Method), Text: e.Text}
		if d.Text == "" {
			d.Text = "Codex waits on a person (" + e.Status + ")"
		}
		s.dialog.channel = &d
		s.setPending(nil) // the flag alone (not yet subscribed): no request to answer
		if e.Request != "" {
			s.setPending(&pendingRequest{id: e.Request, method: e.Method, text: d.Text})
		}
		s.checkDialog()
	case codexapp.Resolved:
		p := s.app.pending.Load()
		if s.dialog.channel != nil && (e.Request == "" || p != nil && e.Request == p.id) {
			s.dialog.channel = nil
			s.setPending(nil)
			s.checkDialog()
		}
	case codexapp.TurnStarted:
		s.app.turn = true
	case codexapp.TurnCompleted:
		s.app.turn = false
		s.log.Debug("turn completed (app-server)", "status", e.Status)
		if e.Status == "completed" {
			s.app.stop.Store(nil)
		}
	case codexapp.Limit:
		s.channelLimit(e)
	case codexapp.Stopped:
		s.log.Warn("Codex stopped the turn", "reason", e.Status, "message", e.Text)
		stop := strings.TrimSuffix(e.Status+": "+e.Text, ": ")
		s.app.stop.Store(&stop)
	case codexapp.RateLimits:
		s.structuredLimit(e.Limits, SourceRateLimits)
	case codexapp.Joined:
		if e.Text != "" {
			s.log.Debug("the app-server refused to join the TUI's thread: asked again", "error", e.Text)
		} else {
			s.log.Debug("joined the TUI's thread on its app-server", "thread", e.Thread)
		}
	case codexapp.Tokens:
		if e.Window > 0 && e.Input >= 0 {
			s.r.Gauge(min(100*float64(e.Input)/float64(e.Window), 100))
		}
	case channelUp:
		s.app.up = true
	case channelGone:
		s.log.Warn("the app-server connection ended: reading the screen only", "why", e.Text)
		s.app.up, s.app.turn = false, false
		s.setPending(nil)
		if s.dialog.channel != nil {
			s.dialog.channel = nil
			s.checkDialog()
		}
	}
}

// channelLimit: Codex says the account is at its limit — a turn failed on
// it, or its rate-limit snapshot says so (workspace credits, spend
// control) —, in its own word; a reset it gives is exact, and at most
// maxLimitWait off (usedUp: a spend control's reset may be weeks away, and
// the sign is one the agent's tree could send).
func (s *Session) channelLimit(e codexapp.Event) {
	text := strings.TrimSuffix("Codex is at its account's limit: "+e.Status+": "+e.Text, ": ")
	if reset, _ := usedUp(profile.RateLimit{Window: e.Status, UsedPercent: 100, ResetsAt: e.Resets}, s.cfg.Clock.Now()); !reset.IsZero() {
		s.limits.structReset = reset
	}
	s.turnLimited(SourceRateLimits, text)
}

// requestKind is the dialog kind of a server request: a question for
// what asks the user for input, a permission for the rest.
func requestKind(method string) string {
	if strings.Contains(method, "requestUserInput") || strings.Contains(method, "elicitation") {
		return profile.DialogQuestion
	}
	return profile.DialogPermission
}
