package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/supervisor/face"
	"github.com/wardenhq/warden/supervisor/state"
)

// ErrNotRunning: no warden answers on the team's control socket.
var ErrNotRunning = errors.New("no warden is running this team")

// Client talks to the warden that runs the team whose state dir is Root.
type Client struct {
	Root string
	Path string // the control socket
	// forPids go with every request as Request.For (For, peers.go).
	forPids []int
}

// NewClient returns the client of the team whose state dir is root.
func NewClient(root string) *Client {
	return &Client{Root: root, Path: state.NewLayout(root).ControlSocket()}
}

// open sends req and reads its response; timeout bounds that (0: none).
// It talks only to warden's own socket (unixsock.Dial: a socket of this
// user's, in a directory no one else may write to, served by a process of
// this user's): never to one another user put in warden's place, who
// would get the text of a send and the keys of an attach, and answer with
// a made-up team or screen.
func (c *Client) open(req Request, timeout time.Duration) (net.Conn, *bufio.Reader, *Response, error) {
	conn, err := unixsock.Dial(c.Path, 2*time.Second)
	if errors.Is(err, unixsock.ErrNotPrivate) {
		if root, aerr := filepath.Abs(c.Root); aerr == nil && filepath.Dir(c.Path) != root {
			err = fmt.Errorf("%w (set XDG_RUNTIME_DIR to a private directory of yours, or use a shorter state_dir)", err)
		}
		return nil, nil, nil, err
	}
	if err != nil {
		return nil, nil, nil, c.notRunning(err)
	}
	if timeout > 0 {
		_ = conn.SetDeadline(time.Now().Add(timeout))
	}
	if len(c.forPids) > 0 {
		req.For = c.forPids
	}
	b, err := json.Marshal(req)
	if err == nil {
		_, err = conn.Write(append(b, '\n'))
	}
	// Read the answer even when the write failed: a refusal comes before
	// the server hangs up.
	br := bufio.NewReaderSize(conn, 64<<10)
	line, rerr := br.ReadBytes('\n')
	if len(line) > 0 && line[len(line)-1] == '\n' {
		err = nil
	} else if err == nil {
		err = rerr
	}
	if err != nil {
		conn.Close()
		return nil, nil, nil, fmt.Errorf("control socket %s: %w", c.Path, err)
	}
	_ = conn.SetDeadline(time.Time{})
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		conn.Close()
		return nil, nil, nil, fmt.Errorf("control socket %s: bad answer: %w", c.Path, err)
	}
	if !resp.OK {
		conn.Close()
		return nil, nil, nil, asRefused(resp)
	}
	return conn, br, &resp, nil
}

// do is a request with one answer.
func (c *Client) do(req Request, timeout time.Duration) (*Response, error) {
	conn, _, resp, err := c.open(req, timeout)
	if err != nil {
		return nil, err
	}
	conn.Close()
	return resp, nil
}

func (c *Client) notRunning(err error) error {
	if state.LockHeld(c.Root) {
		return fmt.Errorf("a warden holds the team at %s, but its control socket %s does not answer (%v): "+
			"it is starting, or an older warden without one", c.Root, c.Path, err)
	}
	return fmt.Errorf("%w at %s (nothing answers on %s)", ErrNotRunning, c.Root, c.Path)
}

// PS returns the team's agents and tasks.
func (c *Client) PS() (*PS, error) {
	r, err := c.do(Request{Cmd: CmdPS}, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return r.PS, nil
}

// Screen returns an agent's screen as text.
func (c *Client) Screen(agent string) (*Screen, error) {
	r, err := c.do(Request{Cmd: CmdScreen, Agent: agent}, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return r.Screen, nil
}

// Send types text into an agent at its next turn boundary, waiting up to
// wait for one.
func (c *Client) Send(agent, text string, force bool, wait time.Duration) (*face.SendResult, error) {
	r, err := c.do(Request{Cmd: CmdSend, Agent: agent, Text: text, Force: force, Wait: wait}, wait+time.Minute)
	if err != nil {
		return nil, err
	}
	return r.Send, nil
}

// Restart restarts an agent from a last checkpoint; it returns once the
// new session runs.
func (c *Client) Restart(agent string) (*Restarted, error) {
	r, err := c.do(Request{Cmd: CmdRestart, Agent: agent}, restartWait+time.Minute)
	if err != nil {
		return nil, err
	}
	return r.Restart, nil
}

// Stop asks the team for a team checkpoint and to exit (now: without the
// last checkpoint requests). With wait it returns when warden is done, or
// when ctx ends.
func (c *Client) Stop(ctx context.Context, now, wait bool) error {
	conn, br, _, err := c.open(Request{Cmd: CmdStop, Now: now}, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	if !wait {
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = br.ReadByte() // EOF: the control socket closed, warden is finishing
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	// The last writes (events, the lock) come after the socket closed.
	for state.LockHeld(c.Root) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// Stream is an attached viewer's connection.
type Stream struct {
	*Attached
	conn net.Conn
	br   *bufio.Reader
	wmu  sync.Mutex
}

// Attach attaches to an agent's terminal (rw: with keystrokes).
func (c *Client) Attach(agent string, rw bool) (*Stream, error) {
	conn, br, resp, err := c.open(Request{Cmd: CmdAttach, Agent: agent, RW: rw}, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &Stream{Attached: resp.Attach, conn: conn, br: br}, nil
}

// Next returns the next frame from warden.
func (s *Stream) Next() (kind byte, p []byte, err error) { return ReadFrame(s.br) }

// Keys sends keystrokes (dropped by warden unless attached with rw).
func (s *Stream) Keys(p []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return WriteFrame(s.conn, FrameKeys, p)
}

// Detach leaves; the agent runs on.
func (s *Stream) Detach() {
	s.wmu.Lock()
	_ = WriteFrame(s.conn, FrameDetach, nil)
	s.wmu.Unlock()
	s.conn.Close()
}

// Watch streams the team's updates until ctx ends or warden is done; the
// channel is closed then.
func (c *Client) Watch(ctx context.Context, screens bool) (<-chan Update, error) {
	conn, br, _, err := c.open(Request{Cmd: CmdWatch, Screens: screens}, 10*time.Second)
	if err != nil {
		return nil, err
	}
	ch := make(chan Update, 64)
	go func() {
		<-ctx.Done()
		conn.Close()
	}()
	go func() {
		defer close(ch)
		defer conn.Close()
		dec := json.NewDecoder(br)
		for {
			var u Update
			if err := dec.Decode(&u); err != nil {
				return
			}
			select {
			case ch <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}
