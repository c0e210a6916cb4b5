// Package usage prices what a session spent: the tokens its CLI's own
// files count (read by internal/tokenfile, found through each CLI's
// profile) by the team's [[price]] table, or the CLI's own price of the
// session when it gives one.
package usage

import (
	"github.com/wardenhq/warden/internal/tokenfile"
	"github.com/wardenhq/warden/protocol"
)

// Tokens are a session's tokens in the record's form.
type Tokens = protocol.Tokens

// Report is what a CLI's token files said of one session.
type Report = tokenfile.Report
