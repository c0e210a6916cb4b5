package supervisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Event names written to events.jsonl (DESIGN §5).
const (
	EvAgentStarted         = "agent_started"
	EvAgentExited          = "agent_exited"
	EvAgentRestarted       = "agent_restarted"
	EvAgentFailed          = "agent_failed"
	EvAgentForceTerminated = "agent_force_terminated"
	EvAgentStale           = "agent_stale"
	EvAgentStalled         = "agent_stalled"
	EvCheckpointRequested  = "checkpoint_requested"
	EvCheckpointReceived   = "checkpoint_received"
	EvCheckpointTimeout    = "checkpoint_timeout"
	EvCheckpointRejected   = "checkpoint_rejected"
	EvTaskDispatched       = "task_dispatched"
	EvTaskCompleted        = "task_completed"
	EvTaskFailed           = "task_failed"
	EvTaskVerifyFailed     = "task_verify_failed"
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
// single write so that concurrent writers never interleave.
type EventLog struct {
	mu  sync.Mutex
	f   *os.File
	now func() time.Time
}

// OpenEventLog opens (or creates, 0600) the events file for appending.
func OpenEventLog(path string, now func() time.Time) (*EventLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return &EventLog{f: f, now: now}, nil
}

// Emit writes one event; kv are alternating keys and values, like hclog's.
func (l *EventLog) Emit(event, agent, task string, kv ...any) error {
	e := Event{TS: l.now(), Event: event, Agent: agent, Task: task, Fields: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Fields[fmt.Sprint(kv[i])] = kv[i+1]
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode event %s: %w", event, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write event %s: %w", event, err)
	}
	return nil
}

// Close closes the file.
func (l *EventLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// ReadEvents reads every event of an events.jsonl file, as maps.
func ReadEvents(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
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
