package control

import (
	"bytes"
	"encoding/json"
	"sync"
)

// subBacklog is how many events wait for one watcher; one that falls this
// far behind is dropped, never waited on.
const subBacklog = 1024

// Hub is where the team tells the watchers (the page) that something
// happened: each event as it is written, and that its state changed. It
// keeps the last events for a watcher that comes later.
type Hub struct {
	mu      sync.Mutex
	keep    int
	recent  [][]byte
	subs    map[chan []byte]struct{}
	changed chan struct{} // closed and replaced on every change
}

// NewHub returns a hub that keeps the last keep events.
func NewHub(keep int) *Hub {
	return &Hub{keep: keep, subs: map[chan []byte]struct{}{}, changed: make(chan struct{})}
}

// Event hands one event's JSON line to every watcher; a line that is not
// a JSON object is dropped (a watcher could not be sent it).
func (h *Hub) Event(line []byte) {
	line = bytes.TrimRight(append([]byte(nil), line...), "\n")
	if !jsonObject(line) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, line)
	if over := len(h.recent) - h.keep; over > 0 {
		h.recent = append(h.recent[:0], h.recent[over:]...)
	}
	for ch := range h.subs {
		select {
		case ch <- line:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// Seed puts events written before this run (events.jsonl's last lines)
// among the recent ones. A torn line (a full disk, a crash mid-write) is
// skipped: the ones after it are sent as usual (issue 22, item 9: one torn
// line ended every watch at once, so the page's event stream for good).
func (h *Hub) Seed(lines [][]byte) {
	good := make([][]byte, 0, len(lines))
	for _, l := range lines {
		if jsonObject(l) {
			good = append(good, l)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(good, h.recent...)
	if over := len(h.recent) - h.keep; over > 0 {
		h.recent = h.recent[over:]
	}
}

// Changed says the team's state changed.
func (h *Hub) Changed() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.changed)
	h.changed = make(chan struct{})
}

// Changes is closed at the next change.
func (h *Hub) Changes() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// Subscribe returns the recent events and a channel of the ones to come;
// it is closed when the watcher fell behind, or by cancel.
func (h *Hub) Subscribe() (recent [][]byte, events <-chan []byte, cancel func()) {
	ch := make(chan []byte, subBacklog)
	h.mu.Lock()
	recent = append([][]byte(nil), h.recent...)
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return recent, ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// jsonObject reports whether line is one JSON object, as an event is.
func jsonObject(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '{' && json.Valid(line)
}
