package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/control"
)

// cmdAnswer answers the dialog an agent waits on for the person running
// it: allow-once or deny, typed as the CLI's own key, only into the dialog
// the person saw (--dialog ID, as the notification and warden ps --json
// name it; without it, the one waiting now, whose question is printed).
// It returns once the dialog is gone from the agent's screen.
func cmdAnswer(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("answer", "usage: warden answer [TEAM.toml | --state-dir DIR] AGENT allow-once|deny [--dialog ID]", stderr)
	dialog := cmd.String("dialog", "", "the id of the dialog you answer (from the notification): any other is refused")
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return cmd.badUsage()
	}
	agent, choice := rest[0], rest[1]
	if choice != profile.AnswerAllowOnce && choice != profile.AnswerDeny {
		return usageError("answer: %q is not an answer: allow-once or deny (warden never answers \"always\")\n%s", choice, cmd.usage)
	}
	c := control.NewClient(dir)
	req := control.AnswerRequest{Choice: choice, DialogID: strings.TrimSpace(*dialog), Via: "cli"}
	if req.DialogID == "" {
		// The dialog waiting now, as ps shows it: answered only if it is
		// still that one when the keys are typed.
		ps, err := c.PS()
		if err != nil {
			return clientError(err)
		}
		for _, a := range ps.Agents {
			if a.Name == agent && a.Dialog != "" {
				req.Dialog = a.Dialog
			}
		}
	}
	a, err := c.Answer(agent, req)
	if err != nil {
		return clientError(err)
	}
	if a == nil {
		return clientError(errors.New("answer: warden said nothing of the answer"))
	}
	fmt.Fprintf(stdout, "answered %s: %s's %s dialog closed %s after the key (dialog %s)\n%s\n",
		a.Choice, a.Agent, a.Kind, a.Took.Round(1e6), a.DialogID, indent(a.Question))
	return nil
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
