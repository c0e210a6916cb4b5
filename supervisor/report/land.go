package report

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/supervisor/event"
)

// Land is the last land of the run's complete tasks (warden land, or
// warden run's own at its end): the integration branch, the tasks merged
// onto it in order, and what stopped it (a conflict, a failing
// land_verify) — or nil when nothing was landed.
type Land struct {
	Branch string   `json:"branch"`
	Base   string   `json:"base,omitempty"`
	Tasks  []string `json:"tasks"`
	// BaseMoved: land = "ff-base" fast-forwarded base to the branch.
	BaseMoved bool `json:"base_moved,omitempty"`
	// StoppedAt is the task whose merge or land_verify stopped the land
	// ("" for a land_verify run once after the last merge), Why its words.
	Stopped   bool   `json:"stopped,omitempty"`
	StoppedAt string `json:"stopped_at,omitempty"`
	Why       string `json:"why,omitempty"`
	// Handed are the land tasks the run handed to land_by ("land.T3 to
	// fixer for T3, attempt 1"); Left what it left for a person, and why.
	Handed []string `json:"handed,omitempty"`
	Left   string   `json:"left,omitempty"`
}

// landed notes a work_landed or a land_stopped: a later land replaces an
// earlier one (a person who fixed the conflict and landed again).
func (b *builder) landed(e *ev) {
	var p struct {
		Branch    string   `json:"branch"`
		Base      string   `json:"base"`
		Tasks     []string `json:"tasks"`
		BaseMoved bool     `json:"base_moved"`
		Stopped   bool     `json:"stopped"`
	}
	e.payload(&p)
	switch e.Event {
	case event.LandHanded:
		var h struct {
			Lands   string `json:"lands"`
			Attempt int    `json:"attempt"`
		}
		e.payload(&h)
		b.landHanded = append(b.landHanded, fmt.Sprintf("%s to %s for %s, attempt %d", plain(e.Task), plain(e.Agent), plain(h.Lands), h.Attempt))
	case event.LandLeft:
		var l struct {
			Reason string `json:"reason"`
		}
		e.payload(&l)
		b.landLeft = fmt.Sprintf("%s (%s)", plain(e.Task), plain(l.Reason))
	case event.LandStopped: // said before its work_landed
		b.land = &Land{Branch: plain(e.Branch), Stopped: true, StoppedAt: plain(e.Task), Why: plain(e.Why)}
	case event.WorkLanded:
		l := &Land{Branch: plain(p.Branch), Base: plain(p.Base), BaseMoved: p.BaseMoved}
		for _, t := range p.Tasks {
			l.Tasks = append(l.Tasks, plain(t))
		}
		if p.Stopped && b.land != nil && b.land.Stopped {
			l.Stopped, l.StoppedAt, l.Why = true, b.land.StoppedAt, b.land.Why
		}
		b.land = l
	}
}

func landSection(p *page, r *Report) {
	l := r.Land
	if l == nil {
		return
	}
	p.heading("Landed on %s", p.esc(l.Branch))
	if len(l.Tasks) > 0 {
		p.line(2, "Merged in order: %s.", p.esc(strings.Join(l.Tasks, ", ")))
	} else {
		p.line(2, "Nothing merged.")
	}
	if l.BaseMoved {
		p.line(2, "%s fast-forwarded to it (land = \"ff-base\").", p.esc(l.Base))
	}
	if len(l.Handed) > 0 {
		p.line(2, "Handed to an agent: %s.", p.esc(strings.Join(l.Handed, "; ")))
	}
	if l.Left != "" {
		p.line(2, "Left for a person: %s.", p.esc(l.Left))
	}
	if l.Stopped {
		at := "after the last merge"
		if l.StoppedAt != "" {
			at = "at " + p.esc(l.StoppedAt)
		}
		p.line(2, "Stopped %s: %s", at, p.esc(l.Why))
	}
}
