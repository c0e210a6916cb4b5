package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Upgrade is what `warden upgrade` is about to do: the running warden
// (Pid) replaces its binary with Binary, the version line From with To,
// and lets go of Agents (name → pid of its live session) for the new one
// to take back.
type Upgrade struct {
	From   string         `json:"from"`
	To     string         `json:"to"`
	Binary string         `json:"binary"`
	Pid    int            `json:"pid"`
	Agents map[string]int `json:"agents"`
}

// Upgrader is what a Team implements to be upgraded in place: Upgrade
// checks and says what will happen, nothing changed yet; exec then does
// it, and returns only when it failed (the old warden runs on).
type Upgrader interface {
	Upgrade(binary string) (up *Upgrade, exec func() error, err error)
}

// upgrade answers an upgrade: refused, or the plan, then exec. A second
// line comes only when the exec failed; a successful exec closes the
// connection (close-on-exec) and the caller reads its end.
func (s *Server) upgrade(c net.Conn, req Request) {
	u, ok := s.team.(Upgrader)
	if !ok {
		reply(c, Response{Error: "this warden cannot be upgraded in place"})
		return
	}
	up, exec, err := u.Upgrade(req.Binary)
	if err != nil {
		reply(c, Response{Error: err.Error()})
		return
	}
	s.log.Info("upgrade asked for over the control socket", "binary", up.Binary, "from", up.From, "to", up.To)
	if err := reply(c, Response{OK: true, Upgrade: up}); err != nil {
		s.log.Warn("upgrade: the caller is gone: not upgraded", "error", err)
		return
	}
	if err := exec(); err != nil {
		reply(c, Response{Error: err.Error()})
	}
}

// ErrUpgradeFailed: the running warden said the exec of the new binary
// failed; it runs on.
var ErrUpgradeFailed = errors.New("upgrade failed")

// Upgrade asks the running warden to replace its binary with binary ("":
// the file now at the path it was started from). It returns the plan once
// the warden has exec'd the new binary (its connection ended), or why not.
func (c *Client) Upgrade(binary string, wait time.Duration) (*Upgrade, error) {
	conn, br, resp, err := c.open(Request{Cmd: CmdUpgrade, Binary: binary}, wait)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	line, err := br.ReadBytes('\n')
	switch {
	case errors.Is(err, io.EOF) && len(line) == 0:
		return resp.Upgrade, nil // exec'd: every descriptor of the old image closed
	case err != nil && len(line) == 0:
		return resp.Upgrade, fmt.Errorf("%w: no word from warden after it was asked (%v)", ErrUpgradeFailed, err)
	}
	var r Response
	if jerr := json.Unmarshal(line, &r); jerr != nil || r.Error == "" {
		return resp.Upgrade, fmt.Errorf("%w: bad answer %q", ErrUpgradeFailed, line)
	}
	return resp.Upgrade, fmt.Errorf("%w: %s", ErrUpgradeFailed, r.Error)
}
