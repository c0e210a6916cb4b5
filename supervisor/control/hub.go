package control

import (
	"bytes"
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

// Event hands one event's JSON line to every watcher.
func (h *Hub) Event(line []byte) {
	line = bytes.TrimRight(append([]byte(nil), line...), "\n")
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
// among the recent ones.
func (h *Hub) Seed(lines [][]byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(append([][]byte(nil), lines...), h.recent...)
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
