//go:build !e2e

package codexapp

import (
	"encoding/json"
	"testing"
	"time"
)

// resumeOf is the client's next message, which must be a thread/resume:
// its id and params.
func (s *fakeServer) resumeOf(d time.Duration) (id any, params map[string]any) {
	s.t.Helper()
	s.ws.c.SetReadDeadline(time.Now().Add(d))
	b, err := s.ws.read()
	if err != nil {
		s.t.Fatalf("no message from the client within %v: %v", d, err)
	}
	var m struct {
		Method string         `json:"method"`
		ID     any            `json:"id"`
		Params map[string]any `json:"params"`
	}
	json.Unmarshal(b, &m)
	if m.Method != "thread/resume" {
		s.t.Fatalf("the client sent %q, want thread/resume", m.Method)
	}
	return m.ID, m.Params
}

// warden's thread/resume only subscribes: it asks Codex 0.171.0 for no
// history (excludeTurns; full-history loading is deprecated), and a
// server that refuses the field is asked again without it.
func TestResumeExcludesTurns(t *testing.T) {
	_, srv := pipeClient(t)
	srv.send(`{"method":"thread/started","params":{"thread":{"id":"th1","ephemeral":false}}}`)
	srv.send(`{"method":"thread/status/changed","params":{"threadId":"th1","status":{"type":"active","activeFlags":[]}}}`)
	id, p := srv.resumeOf(time.Second)
	if p["threadId"] != "th1" || p["excludeTurns"] != true {
		t.Fatalf("thread/resume %v, want th1 with excludeTurns", p)
	}
	srv.send(`{"id":%v,"error":{"code":-32600,"message":"Invalid request: unknown field `+"`excludeTurns`"+`"}}`, id)
	_, p = srv.resumeOf(time.Second)
	if _, ok := p["excludeTurns"]; ok || p["threadId"] != "th1" {
		t.Fatalf("thread/resume after the field's refusal %v, want th1 without excludeTurns", p)
	}
}
