// Package asciicast writes and reads terminal recordings in the asciicast v2
// format (the format of asciinema): a JSON header line, then one JSON array
// a line for each event — [seconds, "o", data] for output, [seconds, "r",
// "COLSxROWS"] for a resize. Writer records a process's output cheaply
// (buffered, no allocation per chunk, UTF-8 kept whole across chunks);
// Reader parses a recording; Play replays one in real time.
package asciicast

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Version is the asciicast format version written and read.
const Version = 2

// DefaultIdleLimit caps every pause of a replay (the header's
// idle_time_limit, as asciinema play honours it): an agent idle for an hour
// replays as a pause of 2 s.
const DefaultIdleLimit = 2 * time.Second

// Header is the first line of a recording.
type Header struct {
	Version   int   `json:"version"`
	Width     int   `json:"width"`
	Height    int   `json:"height"`
	Timestamp int64 `json:"timestamp,omitempty"` // unix seconds of the start
	// IdleTimeLimit caps the pauses of a replay, in seconds (0: none).
	IdleTimeLimit float64 `json:"idle_time_limit,omitempty"`
	// Env holds TERM only: recordings may be read by others, and the
	// environment may hold secrets.
	Env   map[string]string `json:"env,omitempty"`
	Title string            `json:"title,omitempty"`
}

// Start is the header's timestamp as a time.
func (h Header) Start() time.Time { return time.Unix(h.Timestamp, 0) }

// IdleLimit is the header's idle_time_limit, or DefaultIdleLimit.
func (h Header) IdleLimit() time.Duration {
	if h.IdleTimeLimit > 0 {
		return time.Duration(h.IdleTimeLimit * float64(time.Second))
	}
	return DefaultIdleLimit
}

func (h Header) check() error {
	if h.Version != Version {
		return fmt.Errorf("asciicast version %d, want %d", h.Version, Version)
	}
	if h.Width <= 0 || h.Height <= 0 {
		return fmt.Errorf("asciicast size %dx%d", h.Width, h.Height)
	}
	return nil
}

func (h Header) line() ([]byte, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("asciicast header: %w", err)
	}
	return append(b, '\n'), nil
}

// Event codes.
const (
	Output = "o"
	Resize = "r"
)

// Event is one line after the header.
type Event struct {
	Time float64 // seconds since the start
	Code string  // Output, Resize, or another code (input, marker), kept as read
	Data string
}

// Size parses a resize event's "COLSxROWS".
func (e Event) Size() (cols, rows int, err error) {
	c, r, ok := strings.Cut(e.Data, "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || cols <= 0 || rows <= 0 {
		return 0, 0, fmt.Errorf("asciicast resize %q: want COLSxROWS", e.Data)
	}
	return cols, rows, nil
}
