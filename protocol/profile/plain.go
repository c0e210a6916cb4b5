package profile

import (
	"time"

	"github.com/wardenhq/warden/protocol"
)

// plainProfile drives a line-oriented program: its output is read line by
// line, a line of text followed by "\n" is a submission, and EOF (Ctrl-D)
// asks it to end. No screen is read.
func plainProfile() *Profile {
	return &Profile{
		Name:      "plain",
		Mode:      protocol.ModeLines,
		Settle:    100 * time.Millisecond,
		TurnQuiet: 1500 * time.Millisecond,
		Poll:      25 * time.Millisecond,
		quit:      []Keys{{Bytes: []byte{0x04}}},
		cont:      "continue",
	}
}
