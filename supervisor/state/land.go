package state

import (
	"fmt"
	"strings"
)

// Land is where a run's own land stands (land_by): what is on the
// integration branch, what stopped it, the land task it was handed to or
// that it waits for a person; state.json, STATUS.md, warden ps and the
// page show it. Text is Line's, for the page.
type Land struct {
	Branch    string   `json:"branch"`
	Landed    []string `json:"landed,omitempty"`
	StoppedAt string   `json:"stopped_at,omitempty"`
	Why       string   `json:"why,omitempty"` // the first line of what stopped it
	// Handed is the land task under way (land.T3) and its agent and
	// attempt of Attempts; Left: the stop is left for a person.
	Handed   string   `json:"handed,omitempty"`
	By       string   `json:"by,omitempty"`
	Attempt  int      `json:"attempt,omitempty"`
	Attempts int      `json:"attempts,omitempty"`
	Left     bool     `json:"left,omitempty"`
	Waits    []string `json:"waits,omitempty"` // "T4: not tried: the land stopped at T3"
	Text     string   `json:"text"`
}

// Line is the land in one line: "warden/t/landed: landed T1, T2; stopped
// at T3 (merging … conflicts in a.txt): handed to fixer as land.T3
// (attempt 1 of 2)".
func (l *Land) Line() string {
	var b strings.Builder
	b.WriteString(l.Branch + ": ")
	if len(l.Landed) > 0 {
		b.WriteString("landed " + strings.Join(l.Landed, ", "))
	} else {
		b.WriteString("nothing landed yet")
	}
	if l.StoppedAt != "" {
		fmt.Fprintf(&b, "; stopped at %s (%s)", l.StoppedAt, l.Why)
	}
	switch {
	case l.Handed != "":
		fmt.Fprintf(&b, ": handed to %s as %s (attempt %d of %d)", l.By, l.Handed, l.Attempt, l.Attempts)
	case l.Left:
		b.WriteString(": left for a person")
	}
	return b.String()
}

// landSection is STATUS.md's Land section ("" for none).
func landSection(l *Land, cell func(string) string) string {
	if l == nil {
		return ""
	}
	out := "\n## Land\n\n- " + cell(l.Line()) + "\n"
	for _, w := range l.Waits {
		out += "- waits: " + cell(w) + "\n"
	}
	return out
}
