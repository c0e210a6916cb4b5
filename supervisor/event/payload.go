package event

import (
	"reflect"
	"strings"
)

// The payloads of the events that more than their writer reads: the writer
// fills one and emits its KV, a reader decodes the line into the same type
// (the line's other keys — ts, event, agent, task — are left to it). The
// tags are the line's keys; the line is written as every event is (one flat
// object, its keys sorted), byte for byte as before the types were.

// Waiting is agent_waiting's payload: the dialog an agent waits on. Read by
// the notifications and the run's report.
type Waiting struct {
	Kind     string `json:"kind"` // permission, question or other
	Text     string `json:"text"`
	Question string `json:"question"`  // what it asks, without its choices
	DialogID string `json:"dialog_id"` // names it for warden answer --dialog
	// OnScreen: read off the screen; false, announced by the CLI's status
	// report or hook before its screen was read.
	OnScreen  bool   `json:"on_screen"`
	SessionID string `json:"session_id"`
}

// KV is the payload as Emit takes it.
func (p Waiting) KV() []any { return kv(p) }

// AnsweredByWarden is dialog_answered's payload when warden answered a
// CLI's limit dialog with the choice that changes nothing (By "warden").
type AnsweredByWarden struct {
	By        string `json:"by"`
	Choice    string `json:"choice"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	SessionID string `json:"session_id"`
}

// KV is the payload as Emit takes it.
func (p AnsweredByWarden) KV() []any { return kv(p) }

// AnsweredByPerson is dialog_answered's payload when a person answered
// the dialog an agent waited on (By "person", Via "cli" or "page"), and
// the line a reader of either kind decodes. Through is "app-server" for a
// Codex request answered with its own decision, not a key.
type AnsweredByPerson struct {
	By        string `json:"by"`
	Via       string `json:"via"`
	Choice    string `json:"choice"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Question  string `json:"question"`
	DialogID  string `json:"dialog_id"`
	Through   string `json:"through,omitempty"`
	SessionID string `json:"session_id"`
}

// KV is the payload as Emit takes it.
func (p AnsweredByPerson) KV() []any { return kv(p) }

// TeamCheckpointBegan is team_checkpoint_started's payload: why (a
// protocol.Cause*) and in words. Read by the run's report.
type TeamCheckpointBegan struct {
	Reason string `json:"reason"`
	Cause  string `json:"cause"`
}

// KV is the payload as Emit takes it.
func (p TeamCheckpointBegan) KV() []any { return kv(p) }

// kv is p's fields as alternating keys (their json tags) and values (as
// they are: the event log encodes them as it always did — a string that
// is not UTF-8, say, as before), in the order of the fields; a field
// tagged omitempty is left out when it is its zero.
func kv(p any) []any {
	v := reflect.ValueOf(p)
	out := make([]any, 0, 2*v.NumField())
	for i := range v.NumField() {
		name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if opts == "omitempty" && f.IsZero() {
			continue
		}
		out = append(out, name, f.Interface())
	}
	return out
}
