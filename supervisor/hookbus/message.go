// Package hookbus carries what the agent CLIs' hooks, status lines and
// notify programs report (via `warden hook KIND`) to the supervisor: a unix
// socket server per team, the client a hook process uses, and a spool file
// per agent for when the supervisor is not listening.
package hookbus

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

// Environment variables warden sets on each agent process, read by `warden hook`.
const (
	EnvAgent    = profile.EnvAgent    // the agent's name
	EnvStateDir = profile.EnvStateDir // the team's state dir
	EnvSocket   = profile.EnvSocket   // the hook bus socket path
)

// Message is one report from a hook.
type Message struct {
	Agent   string
	Kind    string // one of profile.Kinds, or profile.KindCodexTokenCount
	Payload []byte // the JSON the CLI handed over, as it was
	At      time.Time
	// Pid is the sender's pid as the kernel says it (SO_PEERCRED); 0 for a
	// spooled message. Not part of the wire.
	Pid int
	// Checked: the server asked its sender check (Server.CheckSenders)
	// while the sender still waited for its reply; Owned is the answer.
	// Not part of the wire.
	Checked, Owned bool
}

// wire is Message on the socket and in the spool: one JSON object a line;
// a payload that is valid JSON is kept as it is, anything else as a string.
type wire struct {
	Agent       string          `json:"agent"`
	Kind        string          `json:"kind"`
	At          time.Time       `json:"at"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	PayloadText *string         `json:"payload_text,omitempty"`
}

// MarshalJSON encodes the message as one line of JSON.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wire{Agent: m.Agent, Kind: m.Kind, At: m.At}
	if len(m.Payload) > 0 && json.Valid(m.Payload) {
		w.Payload = compact(m.Payload)
	} else if len(m.Payload) > 0 {
		s := string(m.Payload)
		w.PayloadText = &s
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON wrote.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Agent: w.Agent, Kind: w.Kind, At: w.At, Payload: []byte(w.Payload)}
	if w.PayloadText != nil {
		m.Payload = []byte(*w.PayloadText)
	}
	return nil
}

// compact removes insignificant whitespace (pretty-printed payloads hold
// newlines, and the wire is one line a message).
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
