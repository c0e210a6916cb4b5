// Package hookbus carries what the agent CLIs' hooks, status lines and
// notify programs report (via `warden hook KIND`) to the supervisor: a unix
// socket server per team, the client a hook process uses, and a spool file
// per agent for when the supervisor is not listening.
package hookbus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/wardenhq/warden/protocol/hooks"
)

// Environment variables warden sets on each agent process, read by `warden hook`.
const (
	EnvAgent    = hooks.EnvAgent    // the agent's name
	EnvStateDir = hooks.EnvStateDir // the team's state dir
	EnvSocket   = hooks.EnvSocket   // the hook bus socket path
)

// Message is one report from a hook.
type Message struct {
	Agent   string
	Kind    string // one of hooks.Kinds, or hooks.KindCodexTokenCount
	Payload []byte // the JSON the CLI handed over, as it was
	At      time.Time
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

// maxSunPath is the longest socket path Linux accepts (sun_path is 108
// bytes including the terminating NUL).
const maxSunPath = 107

// SocketPath is where the team's hook socket lives: STATE/hooks.sock when
// that fits in sun_path, else $XDG_RUNTIME_DIR (or the temp dir)
// /warden-UID/HASH.sock, HASH being the first 16 hex digits of the SHA-256
// of the absolute state dir. Listen creates the fallback directory 0700 and
// refuses one that others can enter.
func SocketPath(stateDir string) string {
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		abs = stateDir
	}
	p := filepath.Join(abs, "hooks.sock")
	if len(p) <= maxSunPath {
		return p
	}
	sum := sha256.Sum256([]byte(abs))
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" || len(base) > 60 {
		base = os.TempDir()
	}
	if len(base) > 60 {
		base = "/tmp"
	}
	return filepath.Join(base, "warden-"+strconv.Itoa(os.Getuid()), hex.EncodeToString(sum[:8])+".sock")
}

// SpoolPath is the spool file of one agent: STATE/hooks/AGENT.spool.jsonl.
func SpoolPath(stateDir, agent string) (string, error) {
	if agent == "" || agent == "." || agent == ".." || filepath.Base(agent) != agent {
		return "", fmt.Errorf("agent name %q cannot name a spool file", agent)
	}
	return filepath.Join(stateDir, "hooks", agent+".spool.jsonl"), nil
}
