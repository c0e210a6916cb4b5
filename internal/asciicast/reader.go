package asciicast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
)

// Reader parses a recording: its header, then one event a call.
type Reader struct {
	Header Header
	br     *bufio.Reader
	line   int
}

// NewReader reads and checks the header.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10), line: 1}
	first, err := rd.br.ReadBytes('\n')
	if len(first) == 0 && errors.Is(err, io.EOF) {
		return nil, errors.New("empty recording: no asciicast header")
	}
	if len(first) == 0 && err != nil {
		return nil, fmt.Errorf("asciicast header: %w", err)
	}
	if err := json.Unmarshal(first, &rd.Header); err != nil {
		return nil, fmt.Errorf("asciicast header: %w", err)
	}
	if err := rd.Header.check(); err != nil {
		return nil, err
	}
	return rd, nil
}

// ReadHeader reads the header of the recording at path.
func ReadHeader(path string) (Header, error) {
	f, err := safefile.Open(path, os.O_RDONLY)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		return Header{}, fmt.Errorf("%s: %w", path, err)
	}
	return r.Header, nil
}

// Next returns the next event, or io.EOF after the last. A last line cut
// short (the writer died mid-line) ends the recording like EOF; an event
// that does not parse anywhere else is an error naming its line.
func (r *Reader) Next() (Event, error) {
	for {
		b, err := r.br.ReadBytes('\n')
		r.line++
		if len(bytes.TrimSpace(b)) == 0 {
			if err != nil {
				return Event{}, err
			}
			continue // a blank line
		}
		ev, perr := parseEvent(b)
		switch {
		case perr == nil:
			return ev, nil
		case errors.Is(err, io.EOF):
			return Event{}, io.EOF // torn last line
		case err != nil:
			return Event{}, err
		default:
			return Event{}, fmt.Errorf("asciicast line %d: %w", r.line, perr)
		}
	}
}

// parseEvent parses [time, "code", "data"].
func parseEvent(b []byte) (Event, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Event{}, err
	}
	if len(raw) != 3 {
		return Event{}, fmt.Errorf("event with %d elements, want 3", len(raw))
	}
	var ev Event
	if err := json.Unmarshal(raw[0], &ev.Time); err != nil {
		return Event{}, fmt.Errorf("event time: %w", err)
	}
	if err := json.Unmarshal(raw[1], &ev.Code); err != nil {
		return Event{}, fmt.Errorf("event code: %w", err)
	}
	if err := json.Unmarshal(raw[2], &ev.Data); err != nil {
		return Event{}, fmt.Errorf("event data: %w", err)
	}
	if ev.Time < 0 {
		return Event{}, fmt.Errorf("event time %v before the start", ev.Time)
	}
	return ev, nil
}

// tailWindow is how much of a recording's end Length reads first.
const tailWindow = 1 << 20

// Length is the time of the last event of the recording at path (how long
// it plays before idle pauses are capped), read from the file's end.
func Length(path string) (time.Duration, error) {
	f, err := safefile.Open(path, os.O_RDONLY)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if off := fi.Size() - tailWindow; off > 0 {
		tail := make([]byte, tailWindow)
		if _, err := f.ReadAt(tail, off); err != nil {
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
		lines := bytes.Split(tail, []byte("\n"))
		for i := len(lines) - 1; i > 0; i-- { // lines[0] may start mid-line
			if ev, err := parseEvent(lines[i]); err == nil {
				return seconds(ev.Time), nil
			}
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
	}
	r, err := NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	var last float64
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return seconds(last), nil
		}
		if err != nil {
			return seconds(last), fmt.Errorf("%s: %w", path, err)
		}
		last = ev.Time
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
