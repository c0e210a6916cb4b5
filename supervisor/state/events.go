package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
)

// Event is one line of events.jsonl.
type Event struct {
	TS     time.Time      `json:"ts"`
	Event  string         `json:"event"`
	Agent  string         `json:"agent,omitempty"`
	Task   string         `json:"task,omitempty"`
	Fields map[string]any `json:"-"`
}

// MarshalJSON flattens Fields beside the fixed keys: {"ts","event","agent","task",…}.
func (e Event) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(e.Fields)+4)
	for k, v := range e.Fields {
		m[k] = v
	}
	m["ts"] = e.TS.UTC().Format(time.RFC3339Nano)
	m["event"] = e.Event
	if e.Agent != "" {
		m["agent"] = e.Agent
	}
	if e.Task != "" {
		m["task"] = e.Task
	}
	return json.Marshal(m)
}

// EventLog appends events to events.jsonl, one JSON object a line, each in a
// single write so that concurrent writers never interleave. A write that
// fails (a full disk) is reported once, through the logger and OnError, and
// again once it works after failing; the caller is never made to handle it.
type EventLog struct {
	log hclog.Logger
	now func() time.Time
	// OnError, when set, hears of the first failed write (err) and of the
	// first good one after failures (nil). It must not emit events.
	OnError func(err error)
	// OnEmit, when set, sees every event as written (notifications).
	OnEmit func(e Event, line []byte)

	mu      sync.Mutex
	f       *os.File
	failing bool
}

// OpenEventLog opens (or creates, 0600) the events file for appending.
func OpenEventLog(logger hclog.Logger, path string, now func() time.Time) (*EventLog, error) {
	f, err := safefile.Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return &EventLog{log: logger, f: f, now: now}, nil
}

// Emit writes one event; kv are alternating keys and values, like hclog's.
func (l *EventLog) Emit(event, agent, task string, kv ...any) {
	e := Event{TS: l.now(), Event: event, Agent: agent, Task: task, Fields: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Fields[fmt.Sprint(kv[i])] = kv[i+1]
	}
	b, err := json.Marshal(e)
	if err != nil {
		l.log.Error("event not encoded", "event", event, "error", err)
		return
	}
	line := append(protocol.PlainJSON(b), '\n') // no C1 control, nothing invisible, raw
	l.mu.Lock()
	_, err = l.f.Write(line)
	changed := (err != nil) != l.failing
	l.failing = err != nil
	l.mu.Unlock()
	if changed {
		if err != nil {
			l.log.Error("events.jsonl: write failed; events are lost until it works again", "error", err)
		} else {
			l.log.Info("events.jsonl: writing again")
		}
		if l.OnError != nil {
			l.OnError(err)
		}
	}
	if l.OnEmit != nil {
		l.OnEmit(e, line)
	}
}

// Close closes the file.
func (l *EventLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// ReadEvents reads every event of an events.jsonl file, as maps.
func ReadEvents(path string) ([]map[string]any, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return out, fmt.Errorf("decode %s: %w", path, err)
		}
		out = append(out, m)
	}
	return out, nil
}
