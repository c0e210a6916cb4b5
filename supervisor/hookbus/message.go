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
	// Sender is who wrote a spooled message, as `warden hook` found it in
	// /proc when it spooled it (nil on the socket, where the kernel says).
	Sender *Sender
	// Spooled is where a message drained from a spool was (Drain). Not
	// part of the wire.
	Spooled *Spooled
}

// Sender is the process that spooled a message and the agent process it
// runs under, found by `warden hook` walking up its own parents: what lets
// the supervisor judge the line when it replays it, long after those
// processes are gone (see the replay's rules in the supervisor).
type Sender struct {
	// Pid and Start (clock ticks after boot) are the hook process's.
	Pid   int    `json:"pid"`
	Start uint64 `json:"start"`
	// Agent and AgentStart are the agent's process: the topmost ancestor
	// of the hook that carries the session's runner tag, a session leader.
	Agent      int    `json:"agent_pid"`
	AgentStart uint64 `json:"agent_start"`
	// Tag is that session's runner tag ("SUPERVISORPID.N").
	Tag string `json:"tag"`
}

// Spooled is where a drained message was: its spool file's agent, its
// position in the file (0 first) and the file's modification time — the
// time of its last write, which no line may claim to come after.
type Spooled struct {
	File     string
	Line     int
	Modified time.Time
}

// wire is Message on the socket and in the spool: one JSON object a line;
// a payload that is valid JSON is kept as it is, anything else as a string.
type wire struct {
	Agent       string          `json:"agent"`
	Kind        string          `json:"kind"`
	At          time.Time       `json:"at"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	PayloadText *string         `json:"payload_text,omitempty"`
	Sender      *Sender         `json:"sender,omitempty"`
}

// MarshalJSON encodes the message as one line of JSON.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wire{Agent: m.Agent, Kind: m.Kind, At: m.At, Sender: m.Sender}
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
	*m = Message{Agent: w.Agent, Kind: w.Kind, At: w.At, Payload: []byte(w.Payload), Sender: w.Sender}
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
