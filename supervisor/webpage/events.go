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
	// proxies keep it open.
	keepAlive = 15 * time.Second
	// redial is how long the stream waits before it looks for the team
	// again after losing it.
	redial = time.Second
)

// events streams the team to the page as server-sent events: "ps" (the
// team's state), "event" (an events.jsonl line), "screen" (an agent's
// screen), and "down" when no warden answers (it keeps trying).
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming not supported", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()
	ctx := r.Context()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for ctx.Err() == nil {
		updates, err := s.opts.Client.Watch(ctx, true)
		if err != nil {
			send(w, "down", map[string]string{"error": err.Error()})
			fl.Flush()
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
				sendUpdate(w, u)
				for more := true; more; { // what came meanwhile, in one flush
					select {
					case u, ok := <-updates:
						if !ok {
							more = false
							break
						}
						sendUpdate(w, u)
					default:
						more = false
					}
				}
				fl.Flush()
			case <-tick.C:
				fmt.Fprint(w, ": keep-alive\n\n")
				fl.Flush()
			case <-ctx.Done():
				return
			}
		}
		send(w, "down", map[string]string{"error": "the team's warden went away"})
		fl.Flush()
	}
}

func sendUpdate(w http.ResponseWriter, u control.Update) {
	switch {
	case u.PS != nil:
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
