package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// clientError is a control socket's error as warden's exit 1, with its
// message (every operating command says clearly when no warden runs).
func clientError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: 1, err: err}
}

// cmdPS lists the running team's agents and tasks over its control socket.
func cmdPS(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("ps", "usage: warden ps [TEAM.toml | --state-dir DIR] [--json]", stderr)
	asJSON := cmd.Bool("json", false, "print JSON")
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return cmd.badUsage()
	}
	ps, err := control.NewClient(dir).PS()
	if err != nil {
		return clientError(err)
	}
	if *asJSON {
		b, err := json.MarshalIndent(ps, "", "  ")
		if err != nil {
			return fmt.Errorf("ps: %w", err)
		}
		_, err = stdout.Write(append(escapeC1(b), '\n'))
		return err
	}
	renderPS(stdout, ps)
	return nil
}

// renderPS prints the agents and tasks as tables.
func renderPS(w io.Writer, ps *control.PS) {
	now := ps.Now
	stopping := ""
	if ps.Stopping {
		stopping = ", stopping"
	}
	fmt.Fprintf(w, "team %s: warden pid %d, up %s%s\n\n", ps.Team, ps.Pid, age(now, ps.StartedAt), stopping)
	if line := state.TeamSpend(ps.Usage, ps.Budget); line != "" { // what the run spent, against its budget
		fmt.Fprintf(w, "%s\n\n", protocol.Plain(line))
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATE\tTASK\tATTEMPT\tPID\tUPTIME\tLAST CHECKPOINT\tNEXT REQUEST")
	for _, a := range ps.Agents {
		pid, up := "-", "-"
		if !a.SessionStarted.IsZero() {
			pid, up = fmt.Sprint(a.Pid), age(now, a.SessionStarted)
		}
		last := "-"
		if !a.LastCheckpoint.IsZero() {
			last = age(now, a.LastCheckpoint) + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", a.Name, a.State, dash(a.Task), a.Attempt, pid, up, last, nextRequest(now, a))
	}
	tw.Flush()
	for _, a := range ps.Agents {
		if a.State == state.Waiting && a.Dialog != "" {
			fmt.Fprintf(w, "\n%s waits on a dialog:\n", a.Name)
			for _, l := range strings.Split(strings.TrimRight(a.Dialog, "\n"), "\n") {
				fmt.Fprintf(w, "  | %s\n", protocol.Plain(l))
			}
		} else if line := lastDialogLine(now, a); line != "" {
			fmt.Fprintf(w, "\n%s\n", line)
		}
	}
	if len(ps.Overlaps) > 0 {
		fmt.Fprintln(w)
	}
	for _, o := range ps.Overlaps {
		fmt.Fprintf(w, "overlap: %s\n", protocol.Plain(o.Line()))
	}
	if ps.Land != nil { // land_by: where the run's own land stands
		fmt.Fprintf(w, "\nland: %s\n", protocol.Plain(ps.Land.Line()))
	}
	if len(ps.Tasks) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tOWNER\tATTEMPT\tPROGRESS\tBLOCKED BY\tLAST DONE")
	for _, t := range ps.Tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d%%\t%s\t%s\n", t.ID, t.State, dash(t.Owner), t.Attempt, t.Progress,
			dash(strings.Join(t.BlockedBy, ",")), dash(clip(protocol.Plain(t.LastDone), 50)))
	}
	tw.Flush()
}

// nextRequest says when the agent's next checkpoint request is due, or
// that one awaits its answer.
func nextRequest(now time.Time, a control.Agent) string {
	switch {
	case a.State == state.Waiting:
		return "none while it waits"
	case a.BudgetHeld:
		return "none: parked at the budget"
	case a.OverlapHeld != "":
		return "none: held until " + a.OverlapHeld + " ends"
	case !a.RequestedAt.IsZero():
		return "asked " + age(now, a.RequestedAt) + " ago"
	case a.NextRequest.IsZero():
		return "-"
	case !a.NextRequest.After(now):
		return "due now"
	}
	return "in " + age(a.NextRequest, now)
}

// age is the time from then to now, for people ("-" for no time).
func age(now, then time.Time) string {
	if then.IsZero() {
		return "-"
	}
	return span(now.Sub(then))
}

// span says d in its two largest units, cut (not rounded) to whole
// seconds below a minute and to whole minutes above: 0s, 9s, 59s, 1m, 10m,
// 1h, 1h5m, 25h. A negative d (clocks apart) is 0s.
func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(d, 0)/time.Second)
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Hour < time.Minute:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dh%dm", d/time.Hour, d%time.Hour/time.Minute)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// cmdScreen prints an agent's screen as text.
func cmdScreen(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("screen", "usage: warden screen [TEAM.toml | --state-dir DIR] AGENT", stderr)
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return cmd.badUsage()
	}
	scr, err := control.NewClient(dir).Screen(rest[0])
	if err != nil {
		return clientError(err)
	}
	for _, r := range scr.Rows {
		fmt.Fprintln(stdout, protocol.Plain(r)) // an agent's text never reaches your terminal as escapes
	}
	return nil
}

// lastDialogLine says what a person's answer to an agent's last dialog
// did: "asker's last dialog (Bash command: curl …) was declined by a
// person through the page, 3m ago" — whatever its CLI's transcript says.
func lastDialogLine(now time.Time, a control.Agent) string {
	o := a.LastDialog
	if o == nil {
		return ""
	}
	q := ""
	if o.Question != "" {
		q = " (" + clip(strings.Join(strings.Fields(protocol.Plain(o.Question)), " "), 90) + ")"
	}
	via := ""
	if o.Via != "" {
		via = " through " + map[string]string{"page": "the page", "cli": "warden answer"}[o.Via]
		if via == " through " {
			via = " through " + protocol.Plain(o.Via)
		}
	}
	return fmt.Sprintf("%s's last dialog%s was %s by a person%s, %s ago", a.Name, q, o.Outcome, via, age(now, o.At))
}
