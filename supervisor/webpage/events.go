package webpage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
)

const (
	// keepAlive is how often an idle event stream gets a comment, so that
	// proxies keep it open (and a viewer that went away is noticed).
	keepAlive = 15 * time.Second
	// redial is how long the stream waits before it looks for the team
	// again after losing it.
	redial = time.Second
)

// events streams the team to the page as server-sent events: "ps" (the
// team's state), "event" (an events.jsonl line), "screen" (an agent's
// screen), and "down" when no warden answers (it keeps trying) — after
// "disk", the team's last state and newest events from its state dir, once
// each time warden is found gone (disk.go). At most
// Limits.MaxStreams at once (each holds a watcher of the control socket);
// one more is told 503. The server's write timeout would end a stream that
// lives for hours (its read deadline net/http clears once the request is
// read; a hang-up still ends the stream): it sets a write deadline before
// each write instead, so that a viewer that stops reading is dropped within
// StreamWriteTimeout and a live one is kept.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		w.Header().Set("Retry-After", "10")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{
			"error": fmt.Sprintf("this page has as many viewers as it serves at once (%d): close one, or try again later", s.limits.MaxStreams)})
		return
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	st := &stream{w: w, rc: rc, d: s.limits.StreamWriteTimeout}
	st.begin()
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	if st.flush() != nil {
		return
	}
	ctx := r.Context()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	shown := false // the last state from disk, since warden was last seen
	for ctx.Err() == nil {
		updates, err := s.opts.Client.Watch(ctx, true)
		if err != nil {
			st.begin()
			if !shown {
				shown = s.sendDisk(w)
			}
			send(w, "down", map[string]string{"error": err.Error()})
			if st.flush() != nil {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(redial):
			}
			continue
		}
	stream:
		for {
			select {
			case u, ok := <-updates:
				if !ok {
					break stream
				}
				st.begin()
				s.sendUpdate(w, u)
				for more := true; more; { // what came meanwhile, in one flush
					select {
					case u, ok := <-updates:
						if !ok {
							more = false
							break
						}
						s.sendUpdate(w, u)
					default:
						more = false
					}
				}
				if st.flush() != nil {
					return
				}
			case <-tick.C:
				st.begin()
				fmt.Fprint(w, ": keep-alive\n\n")
				if st.flush() != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
		shown = false // what it wrote last is read again
		st.begin()
		send(w, "down", map[string]string{"error": "the team's warden went away"})
		if st.flush() != nil {
			return
		}
	}
}

// stream sets a write deadline before each write to an event stream.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

// begin: the writes from here to the next flush must be done within d.
func (st *stream) begin() { _ = st.rc.SetWriteDeadline(time.Now().Add(st.d)) }

// flush sends what was written; an error means the viewer is gone or
// stopped reading.
func (st *stream) flush() error { return st.rc.Flush() }

func (s *Server) sendUpdate(w http.ResponseWriter, u control.Update) {
	switch {
	case u.PS != nil:
		s.fillRecords(u.PS) // records.go
		send(w, "ps", u.PS)
	case u.Event != nil:
		fmt.Fprintf(w, "event: event\ndata: %s\n\n", u.Event)
	case u.Screen != nil:
		send(w, "screen", u.Screen)
	}
}

func send(w http.ResponseWriter, name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
}
