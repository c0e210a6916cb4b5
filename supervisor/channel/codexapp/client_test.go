//go:build !e2e

package codexapp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"
)

// fakeServer is the app-server's end of a client's connection.
type fakeServer struct {
	t  *testing.T
	ws *wsConn
}

// pipeClient is a Client reading from a fake app-server over a pipe.
func pipeClient(t *testing.T) (*Client, *fakeServer) {
	cc, sc := net.Pipe()
	c := &Client{ws: &wsConn{c: cc, r: bufio.NewReader(cc)}, events: make(chan Event, 64), done: make(chan struct{})}
	go c.readLoop()
	t.Cleanup(func() { c.Close(); sc.Close() })
	return c, &fakeServer{t: t, ws: &wsConn{c: sc, r: bufio.NewReader(sc)}}
}

func (s *fakeServer) send(format string, a ...any) {
	s.t.Helper()
	if err := s.ws.write(0x1, fmt.Appendf(nil, format, a...)); err != nil {
		s.t.Fatal(err)
	}
}

// next is the client's next message, within d.
func (s *fakeServer) next(d time.Duration) (method string, id any) {
	s.t.Helper()
	s.ws.c.SetReadDeadline(time.Now().Add(d))
	b, err := s.ws.read()
	if err != nil {
		s.t.Fatalf("no message from the client within %v: %v", d, err)
	}
	var m struct {
		Method string `json:"method"`
		ID     any    `json:"id"`
	}
	json.Unmarshal(b, &m)
	return m.Method, m.ID
}

// Under load Codex answered warden's thread/resume, sent at the thread's
// first status change, with "no rollout found" (the rollout not written
// yet), and warden stayed unsubscribed until the approval's own status
// change: the approval request never reached it, and the dialog was read
// off the screen without it (a whole run, TestRealCLIDialogDenied/codex).
// A refused resume is asked again a moment later, and the request that
// follows comes with its text.
func TestRefusedResumeIsAskedAgain(t *testing.T) {
	c, srv := pipeClient(t)
	srv.send(`{"method":"thread/started","params":{"thread":{"id":"th1","ephemeral":false}}}`)
	srv.send(`{"method":"thread/status/changed","params":{"threadId":"th1","status":{"type":"active","activeFlags":[]}}}`)
	method, id := srv.next(time.Second)
	if method != "thread/resume" {
		t.Fatalf("the client sent %q at the first status change, want thread/resume", method)
	}
	srv.send(`{"id":%v,"error":{"code":-32600,"message":"no rollout found for thread id th1"}}`, id)
	method, id = srv.next(time.Second) // no status change comes meanwhile
	if method != "thread/resume" {
		t.Fatalf("the client sent %q after the refusal, want thread/resume again", method)
	}
	srv.send(`{"id":%v,"result":{"thread":{"id":"th1"}}}`, id)
	srv.send(`{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th1","reason":"Fetch the page?","command":"curl -s http://127.0.0.1:9/probe"}}`)

	var joins []string
	for deadline := time.After(2 * time.Second); ; {
		select {
		case e := <-c.Events():
			switch e.Kind {
			case Joined:
				joins = append(joins, e.Text)
				continue
			case Waiting:
				if len(joins) != 2 || joins[0] == "" || joins[1] != "" {
					t.Errorf("joins %q, want one refused, then joined", joins)
				}
				if e.Request != "0" || e.Text == "" {
					t.Errorf("waiting %+v, want the request with its text", e)
				}
				return
			}
		case <-deadline:
			t.Fatalf("no waiting event; joins %q", joins)
		}
	}
}
