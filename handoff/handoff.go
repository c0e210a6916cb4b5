package handoff

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/mdtext"
	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
)

// Data is what a team handoff records (DESIGN §6).
type Data struct {
	Team   string
	Reason string // why, in words
	Cause  string // protocol.Cause*: user_interrupt, manual, context_threshold, signal_file, lead, budget, usage_limit, warden_failed
	Time   time.Time
	Agents []Agent
	Tasks  []Task
	// Checkpoints holds the last checkpoint of each open task, by task id.
	Checkpoints map[string]*protocol.Checkpoint
	// Lead is the agent that ended the team checkpoint itself with
	// CHECKPOINT COMPLETE, if one did, and LeadNotes its last notes.
	Lead, LeadNotes string
	// Spent is what the run spent, with its budget ("1.2M tokens, $3.40
	// (max_cost $40.00: 9%)"), "" when nothing was read (spent.go).
	Spent string
	// Land is where the run's own land stands (land_by): what landed, what
	// stopped it, its land task or a person it waits for; "" for none.
	// LandWaits are the tasks that did not land, each with why.
	Land      string
	LandWaits []string
}

// Agent is one line of the team composition.
type Agent struct {
	Name, Profile, State string
	Lead                 bool   // lead = true: its role is "lead", else "worker"
	Task                 string // the task it held (works on, or last worked on)
	Command              []string
	Forced               bool // needed SIGKILL to stop
	// Dialog is the text of the dialog it waited on when the team stopped
	// it: nobody answered it ("" for none).
	Dialog string
}

// Role is the agent's role in the team: "lead" or "worker".
func (a Agent) Role() string {
	if a.Lead {
		return "lead"
	}
	return "worker"
}

// Task is one row of the task table, and of the review.
type Task struct {
	ID, Title, Status, Owner string
	Progress                 int
	BlockedBy                []string
	Verify                   string   // last verify result, "" if none ran
	Blocked                  bool     // its last checkpoint said it is blocked
	Blockers                 []string // on these
	Worked                   string   // time worked beside the estimate (queue.WorkedText), "" for none
	Attempts                 int      // sessions started for it
	// Its worktree (worktree mode): the branch, the base it started from,
	// the branch's last commit and how many commits it is ahead of base.
	Branch, Base, Commit string
	Ahead                int
	// Spent is what its sessions spent ("300k tokens, $0.52"), "" for
	// nothing read.
	Spent string
}

// Open reports whether the task still needs work.
func (t Task) Open() bool { return t.Status != "complete" && t.Status != "failed" }

// causes say in words what asked for a team checkpoint.
var causes = map[string]string{
	"user_interrupt":    "the user stopped the team (Ctrl-C, SIGTERM or warden stop)",
	"manual":            "the user asked for it with warden checkpoint",
	"context_threshold": "an agent's context passed context_threshold",
	"signal_file":       "the signal file appeared",
	"lead":              "the team lead ended it with CHECKPOINT COMPLETE",
	"budget":            "the run reached its budget (max_runtime, stop_at, max_cost or max_tokens)",
	"usage_limit":       "an account reached its usage limit (on_limit = \"checkpoint-exit\")",
	"warden_failed":     "warden itself failed (its hook socket, control socket or signal-file watch) and ended the run",
}

// Render writes the handoff as Markdown, for handoff.md: the agents'
// commands with what looks like a secret redacted.
func Render(d Data) string { return render(d, true) }

// RenderPrompt is the handoff as it goes into the first prompts of the
// fresh sessions: without the agents' commands.
func RenderPrompt(d Data) string { return render(d, false) }

func render(d Data, commands bool) string {
	x := text{md: commands} // handoff.md is Markdown; a prompt is read by a model
	var b strings.Builder
	fmt.Fprintf(&b, "# Handoff: %s\n\n", x.line(d.Team))
	fmt.Fprintf(&b, "- Time: %s\n", d.Time.UTC().Format(time.RFC3339))
	if words := causes[d.Cause]; words != "" {
		fmt.Fprintf(&b, "- Cause: %s\n", words)
	}
	fmt.Fprintf(&b, "- Reason: %s\n", x.line(d.Reason))
	if d.Lead != "" {
		fmt.Fprintf(&b, "- Ended by the team lead %s with CHECKPOINT COMPLETE\n", x.line(d.Lead))
	}
	b.WriteString("\n## Team\n\n| Agent | Profile | Role | Task | State |")
	if commands {
		b.WriteString(" Command |\n|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("\n|---|---|---|---|---|\n")
	}
	for _, a := range d.Agents {
		state := a.State
		if a.Forced {
			state += " (killed after shutdown_timeout)"
		}
		if a.Dialog != "" {
			state += " (waiting on a dialog: below)"
		}
		role := a.Role()
		if a.Lead {
			role = "**lead**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |", x.cell(a.Name), x.cell(a.Profile), role, x.cell(a.Task), x.cell(state))
		if commands {
			fmt.Fprintf(&b, " `%s` |", cell(strings.ReplaceAll(strings.Join(Redact(a.Command), " "), "`", "'")))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Tasks\n\n| ID | Title | Status | Owner | Progress | Worked | Blocked by |\n|---|---|---|---|---|---|---|\n")
	for _, t := range d.Tasks {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d%% | %s | %s |\n", x.cell(t.ID), x.cell(t.Title), x.cell(t.Status), x.cell(t.Owner),
			t.Progress, x.cell(t.Worked), x.cell(strings.Join(t.BlockedBy, ", ")))
	}
	var blocked []Task
	for _, t := range d.Tasks {
		if t.Blocked && t.Open() {
			blocked = append(blocked, t)
		}
	}
	if len(blocked) > 0 {
		b.WriteString("\n## Blocked\n\n")
		for _, t := range blocked {
			fmt.Fprintf(&b, "- %s (%s): %s\n", x.line(t.ID), x.line(dash(t.Owner)), x.line(dash(strings.Join(t.Blockers, "; "))))
		}
	}
	writeDialogs(&b, d.Agents, x)
	writeReview(&b, d.Tasks, x)
	if d.Land != "" {
		fmt.Fprintf(&b, "\n## Land\n\n- %s\n", x.line(d.Land))
		for _, w := range d.LandWaits {
			fmt.Fprintf(&b, "- waits: %s\n", x.line(w))
		}
	}
	writeSpent(&b, d, x)
	b.WriteString("\n## Resumption notes\n")
	for _, t := range d.Tasks {
		if !t.Open() {
			continue
		}
		fmt.Fprintf(&b, "\n### %s: %s\n\n", x.line(t.ID), x.line(dash(t.Title)))
		for _, a := range d.Agents {
			if a.Dialog != "" && a.Task == t.ID {
				fmt.Fprintf(&b, "When the team stopped, %s waited on a dialog nobody answered (under %s): what it asked for was not done.\n",
					x.line(a.Name), dialogsHeading)
			}
		}
		if cp := d.Checkpoints[t.ID]; cp != nil {
			b.WriteString(resumeText(cp, t.Attempts+1, x)) // its next session's attempt
		} else {
			b.WriteString("No checkpoint yet: start the task from its prompt.\n")
		}
	}
	if d.LeadNotes != "" {
		fmt.Fprintf(&b, "\n## Notes from the team lead %s\n\n%s\n", x.line(d.Lead), x.line(d.LeadNotes))
	}
	return b.String()
}

// Write writes the handoff to latest (handoff.md, in the state dir),
// atomically, and keeps a copy in keptDir (handoffs/, inside the state dir);
// the state dir's layout names both. No symbolic link on the way is followed.
func Write(latest, keptDir string, d Data) error {
	text := []byte(Render(d))
	root := filepath.Dir(latest)
	kept := filepath.Join(keptDir, "handoff-"+d.Time.UTC().Format("20060102T150405.000Z")+".md")
	if err := safefile.WriteAtomic(root, kept, text); err != nil {
		return fmt.Errorf("write handoff: %w", err)
	}
	if err := safefile.WriteAtomic(root, latest, text); err != nil {
		return fmt.Errorf("write handoff: %w", err)
	}
	return nil
}

// dialogsHeading heads the dialogs the stop left open.
const dialogsHeading = "Dialogs open at the stop"

// writeDialogs writes each dialog an agent waited on when the team stopped
// it, as the agent's screen showed it: a code block, which no line of it
// can leave.
func writeDialogs(b *strings.Builder, agents []Agent, x text) {
	first := true
	for _, a := range agents {
		if a.Dialog == "" {
			continue
		}
		if first {
			fmt.Fprintf(b, "\n## %s\n", dialogsHeading)
			first = false
		}
		fmt.Fprintf(b, "\n- %s (on %s) waited on this dialog; nobody answered it:\n\n", x.line(a.Name), x.line(dash(a.Task)))
		for _, l := range strings.Split(strings.TrimRight(a.Dialog, "\n"), "\n") {
			fmt.Fprintf(b, "      %s\n", strings.TrimRight(line(l), " "))
		}
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// line is text from the team file or an agent on one line of Markdown,
// without control characters (C0, C1): it can start no heading, row or
// escape sequence.
func line(s string) string { return protocol.Plain(s) }

// cell keeps a table cell on one line, its pipes escaped.
func cell(s string) string { return strings.ReplaceAll(line(dash(s)), "|", "\\|") }

// text is how the handoff writes text from outside warden (an agent's, a
// CLI's, the team file's): for handoff.md, Markdown, with what a renderer
// would act on escaped (mdtext: no HTML, link or code span of it, issue
// 33); for a fresh session's first prompt, plain, as the agent wrote it.
type text struct{ md bool }

// line is text on one line.
func (x text) line(s string) string {
	if x.md {
		return mdtext.Escape(s)
	}
	return line(s)
}

// cell is text for a table cell ("-" for none).
func (x text) cell(s string) string {
	if x.md {
		return mdtext.Cell(s)
	}
	return cell(s)
}
