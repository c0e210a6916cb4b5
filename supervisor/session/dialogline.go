package session

import (
	"fmt"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// The lines a person reads of a dialog on warden's stdout: that the agent
// waits on it and how to answer it, then when it closed and through what.

// Ways a person's keys reach a dialog through warden.
const (
	viaAttach = "attach" // warden attach --rw
	viaSend   = "send"   // warden send --force
	viaAnswer = "answer" // warden answer, or the page's buttons (answer.go): its own DIALOG ANSWERED line says so
)

// waitsLine is the WARNING that agent waits on dialog d: what it is, and
// how a person answers it — warden answer (a permission dialog: allow once
// or deny; another: deny), in the agent's own terminal, or by letting
// on_dialog = "deny" (or dialog_timeout, when it is already on) deny it.
func waitsLine(agent string, d profile.Dialog, p DialogPolicy) string {
	how := fmt.Sprintf("answer it in its terminal: warden attach --rw %s", agent)
	switch d.Kind {
	case profile.DialogPermission:
		how = fmt.Sprintf("answer it: warden answer %s allow-once|deny, or in its terminal: warden attach --rw %s", agent, agent)
	case profile.DialogLimit:
	default:
		how += fmt.Sprintf(" (warden answer %s deny denies it)", agent)
	}
	switch {
	case d.Kind == profile.DialogLimit:
		// never denied: a person answers it, or the limit's reset does
	case p.Deny:
		how += fmt.Sprintf(", or warden denies it in %s (on_dialog = \"deny\")", p.Timeout)
	default:
		how += ` (on_dialog = "deny" would deny it after dialog_timeout)`
	}
	return fmt.Sprintf("WARNING: %s waits for a person (%s): %s; %s\n", agent, d.Kind, protocol.FirstLine(d.Text), how)
}

// typedIntoDialog notes that a person's keys went into the dialog the agent
// waits on now (any goroutine), for the line that says it closed.
func (s *Session) typedIntoDialog(via string) {
	if s.dialog.up.Load() {
		s.dialog.via.Store(via)
	}
}

// closedLine is the line that says the dialog d the agent waited on since
// closed, after waited: answered through warden (via attach or send), or
// not (in the CLI itself, or the CLI closed it); "" for a dialog a
// person's answer closed (viaAnswer), which has its own line.
func closedLine(agent string, d *profile.Dialog, waited time.Duration, via string) string {
	how := "with no keys through warden (answered in the CLI, or the CLI closed it)"
	switch via {
	case viaAnswer:
		return ""
	case viaAttach:
		how = "answered through warden attach --rw"
	case viaSend:
		how = "answered through warden send --force"
	}
	what := ""
	if d != nil {
		what = fmt.Sprintf(" (%s: %s)", d.Kind, protocol.FirstLine(d.Text))
	}
	return fmt.Sprintf("DIALOG CLOSED: %s's dialog%s closed after %s, %s\n", agent, what, waited, how)
}
