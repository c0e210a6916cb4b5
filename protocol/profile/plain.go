package profile

import (
	"time"

	"github.com/wardenhq/warden/protocol"
)

// PlainName is the profile of an agent whose team file names none.
const PlainName = "plain"

func init() {
	Register(CLI{
		Name: PlainName,
		New:  plainProfile,
		// A plain program may be a wrapper of any CLI: its hooks are read.
		anyKind: true,
		Init: InitAgent{
			Name: "agent",
			Comment: "Any interactive program that reads its prompt from the terminal and\n" +
				"answers warden's CHECKPOINT REQUEST lines (the first prompt says how).",
			Command: []string{"aider", "--yes-always"},
		},
	})
}

// plainProfile drives a line-oriented program: its output is read line by
// line, a line of text followed by "\n" is a submission, and EOF (Ctrl-D)
// asks it to end. No screen is read. It is also the profile of a
// registered CLI without a New of its own.
func plainProfile() *Profile {
	return &Profile{
		Mode:      protocol.ModeLines,
		Settle:    100 * time.Millisecond,
		TurnQuiet: 1500 * time.Millisecond,
		Poll:      25 * time.Millisecond,
		quit:      []Keys{{Bytes: []byte{0x04}}},
		cont:      "continue",
	}
}
