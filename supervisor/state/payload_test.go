package state

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/event"
)

// An event written from its typed payload (package event) is the line its
// writer wrote from keys and values before the types were, byte for byte —
// text that JSON escapes, that is not UTF-8, or that a terminal acts on
// included.
func TestPayloadLinesAreTheKeyValueLines(t *testing.T) {
	const text = "Do you want to run `a && b < c > d`?\n\u2028\u009b31m\xff \u202e ok \"q\" \\"
	for _, c := range []struct {
		name    string
		kv      []any
		payload []any
	}{
		{event.AgentWaiting,
			[]any{"kind", "permission", "text", text, "question", text, "dialog_id", "3f2a0c9b1e", "on_screen", false, "session_id", "0a1b"},
			event.Waiting{Kind: "permission", Text: text, Question: text, DialogID: "3f2a0c9b1e", SessionID: "0a1b"}.KV()},
		{event.DialogAnswered,
			[]any{"by", "warden", "choice", "keep", "kind", "limit", "text", text, "session_id", "0a1b"},
			event.AnsweredByWarden{By: "warden", Choice: "keep", Kind: "limit", Text: text, SessionID: "0a1b"}.KV()},
		{event.DialogAnswered,
			[]any{"by", "person", "via", "page", "choice", "deny", "kind", "permission", "text", text, "question", "", "dialog_id", "x", "session_id", "0a1b"},
			event.AnsweredByPerson{By: "person", Via: "page", Choice: "deny", Kind: "permission", Text: text, DialogID: "x", SessionID: "0a1b"}.KV()},
		{event.DialogAnswered,
			[]any{"by", "person", "via", "cli", "choice", "allow-once", "kind", "permission", "text", text, "question", text, "dialog_id", "x", "through", "app-server", "session_id", "0a1b"},
			event.AnsweredByPerson{By: "person", Via: "cli", Choice: "allow-once", Kind: "permission", Text: text, Question: text, DialogID: "x", Through: "app-server", SessionID: "0a1b"}.KV()},
		{event.TeamCheckpointStarted,
			[]any{"reason", text, "cause", "warden_failed"},
			event.TeamCheckpointBegan{Reason: text, Cause: "warden_failed"}.KV()},
	} {
		if got, want := emitted(t, c.name, c.payload), emitted(t, c.name, c.kv); !bytes.Equal(got, want) {
			t.Errorf("%s from its payload:\n%s\nfrom keys and values:\n%s", c.name, got, want)
		}
	}
}

func emitted(t *testing.T, name string, kv []any) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := OpenEventLog(hclog.NewNullLogger(), path, func() time.Time { return time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC) })
	if err != nil {
		t.Fatal(err)
	}
	l.Emit(name, "w", "T1", kv...)
	l.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
