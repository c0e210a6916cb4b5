package control

import (
	"bufio"
	"encoding/json"
	"net"
	"time"
)

const (
	// watchTick is how often a watch looks at the team's state and screens.
	watchTick = 200 * time.Millisecond
	// psEvery: the state is sent at least this often, so that ages move.
	psEvery = time.Second
)

// watch streams Updates to the client (the page): the team's state and the
// recent events first, then every event as it is written, the state when it
// changed, and (with Screens) each agent's screen when its output moved.
func (s *Server) watch(c *net.UnixConn, br *bufio.Reader, req Request) {
	recent, events, cancel := s.hub.Subscribe()
	defer cancel()
	if reply(c, Response{OK: true}) != nil {
		return
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		_, _ = br.ReadByte() // the client sends nothing: this returns when it hangs up
	}()
	bw := bufio.NewWriterSize(c, 64<<10)
	enc := json.NewEncoder(bw)
	send := func(u Update) error { return enc.Encode(u) }
	flush := func() error {
		_ = c.SetWriteDeadline(time.Now().Add(writeDeadline))
		return bw.Flush()
	}
	seqs := map[string]uint64{}
	ps := s.team.PS()
	sendState := func() error {
		if err := send(Update{PS: &ps}); err != nil {
			return err
		}
		if !req.Screens {
			return nil
		}
		for _, a := range ps.Agents {
			if seq, ok := seqs[a.Name]; ok && seq == a.OutputSeq {
				continue
			}
			scr, err := s.team.Screen(a.Name)
			if err != nil {
				continue
			}
			seqs[a.Name] = scr.Seq
			if err := send(Update{Screen: scr}); err != nil {
				return err
			}
		}
		return nil
	}
	if sendState() != nil {
		return
	}
	for _, e := range recent {
		if send(Update{Event: e}) != nil {
			return
		}
	}
	if flush() != nil {
		return
	}
	tick := time.NewTicker(watchTick)
	defer tick.Stop()
	changes, dirty, last := s.hub.Changes(), false, time.Now()
	for {
		var err error
		select {
		case e, ok := <-events:
			if !ok {
				return // fell behind: the client connects again
			}
			if err = send(Update{Event: e}); err == nil {
				err = flush()
			}
		case <-changes:
			changes, dirty = s.hub.Changes(), true
		case <-tick.C:
			ps = s.team.PS()
			moved := false
			for _, a := range ps.Agents {
				moved = moved || seqs[a.Name] != a.OutputSeq
			}
			if !dirty && !moved && time.Since(last) < psEvery {
				continue
			}
			dirty, last = false, time.Now()
			if err = sendState(); err == nil {
				err = flush()
			}
		case <-gone:
			return
		case <-s.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}
