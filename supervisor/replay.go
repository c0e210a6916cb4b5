package supervisor

import (
	"bytes"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// A warden killed with -9 may have read an answer off an agent's terminal
// — logged it, since the runner writes what it reads to the agent's log
// before anything else — and died before it recorded it: the holder's
// ring holds only what no warden read, so the next warden would never see
// that answer. For an agent read by lines (a plain CLI), the warden that
// takes the session back reads the answers again from the end of the log
// before what the holder kept: the last few blocks, from a block's first
// line. Those the dead warden recorded are the session's records already
// and count as drawn again (agent/takeback.go); the others are recorded
// now, with the trigger unasked. A TUI's screen is not read this way: its
// log is frames, and its screen is drawn again for the new warden.

// replayWindow bounds how much of the log's end is read again.
const replayWindow = 64 << 10

// replayBlocks is how many of the log's last answers are read again.
const replayBlocks = 3

// lines reports whether agents of the profile named are read by lines.
func lines(name string) bool {
	p, err := profile.For(name)
	return err == nil && p.Mode == protocol.ModeLines
}

// template reports whether the block at the start of b is the form the
// first prompt shows (protocol.Preamble), echoed by the terminal: its
// Status line a placeholder.
func template(b []byte) bool {
	_, rest, _ := bytes.Cut(b, []byte("\n"))
	return bytes.HasPrefix(bytes.TrimLeft(rest, "\r"), []byte("Status: <"))
}

// unhandledTail is the end of the log at path from the first line of its
// replayBlocks-th last answer block ("CHECKPOINT:" at a line's start),
// within its last replayWindow bytes and after the echo of the session's
// first prompt (before it: another session's); nil when there is none.
func unhandledTail(log hclog.Logger, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(st.Size()-replayWindow, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		log.Warn("the end of the agent's log not read again", "error", err)
		return nil
	}
	start, found := -1, 0
	for i := len(b); i > 0 && found < replayBlocks; {
		j := bytes.LastIndex(b[:i], []byte("CHECKPOINT:"))
		if j < 0 {
			break
		}
		if j == 0 && off == 0 || j > 0 && b[j-1] == '\n' {
			if template(b[j:]) {
				break // the first prompt's echo: the session began there
			}
			start, found = j, found+1
		}
		i = j
	}
	if start < 0 {
		return nil
	}
	log.Info("reading the end of the agent's log again: answers the dead supervisor may not have recorded", "bytes", len(b)-start)
	return b[start:]
}
