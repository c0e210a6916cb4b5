//go:build e2e

package holder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/unixsock"
)

// A warden upgraded under a holder from before StartRequest.Adopt (the
// holder outlives `warden upgrade`, so the new binary talks to the old one)
// still gets the new agent's master: that holder answers the start with no
// "adopted" message, and StartAdopt adopts it then. The old holder is
// played here by its side of the protocol as it was: it ignores the field.
func TestStartAdoptUnderAnOlderHolder(t *testing.T) {
	dir, err := os.MkdirTemp("", "hold")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "s", "holder.sock")
	ln, err := unixsock.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()

	ops := make(chan Request, 4)
	go func() {
		uc, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		defer uc.Close()
		lc := newLineConn(uc, maxRequest, writeTimeout)
		if lc.writeJSON(Message{Kind: KindHello, Version: ProtocolVersion, Pid: os.Getpid()}, -1) != nil {
			return
		}
		agent := AgentInfo{ID: "a1", Pid: os.Getpid(), Argv: []string{"chat"}}
		for {
			line, err := lc.readLine()
			if err != nil {
				return
			}
			var req Request
			if json.Unmarshal(line, &req) != nil {
				return
			}
			ops <- req
			switch req.Op {
			case OpStart: // as before the field: started, nothing handed over
				_ = lc.writeJSON(Message{Kind: KindReply, Seq: req.Seq, Agent: &agent}, -1)
			case OpAdopt:
				fd, err := unix.FcntlInt(ptmx.Fd(), unix.F_DUPFD_CLOEXEC, 0)
				if err != nil || unix.SetNonblock(fd, true) != nil {
					return
				}
				in := agent
				in.Adopted = true
				_ = lc.writeJSON(Message{Kind: KindAdopted, Seq: req.Seq, Agent: &in, Output: []byte("ready\r\n"), FD: true}, fd)
				_ = unix.Close(fd)
				_ = lc.writeJSON(Message{Kind: KindReply, Seq: req.Seq, Agents: []AgentInfo{in}}, -1)
			default:
				_ = lc.writeJSON(Message{Kind: KindReply, Seq: req.Seq, Error: "unknown operation"}, -1)
			}
		}
	}()

	c, err := Dial(testLog, socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ad, err := c.StartAdopt(ctx(t), chat())
	if err != nil {
		t.Fatalf("StartAdopt under an older holder: %v", err)
	}
	if ad.Agent.ID != "a1" || ad.Master == nil || string(ad.Output) != "ready\r\n" {
		t.Fatalf("StartAdopt = %+v; want agent a1, its master and what the holder read", ad)
	}
	start, adopt := <-ops, <-ops
	if start.Op != OpStart || start.Start == nil || !start.Start.Adopt {
		t.Errorf("first request %+v; want a start asking for the master", start)
	}
	if adopt.Op != OpAdopt || len(adopt.IDs) != 1 || adopt.IDs[0] != "a1" {
		t.Errorf("second request %+v; want an adopt of a1", adopt)
	}
	if _, err := tty.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, ad.Master, nil, "what the agent wrote", contains("hello"))
}
