package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/wardenhq/warden/internal/mdtext"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/queue"
)

// Bounds on the text the report keeps of what agents and files wrote.
const (
	maxText      = 300 // a dialog, a reason
	maxLine      = 160 // a last line of a failed agent
	maxLastLines = 3
	// Width is the report's line width: every line of Render's text fits.
	Width = 100
)

// plain is s on one line, nothing in it a terminal acts on or that reads
// otherwise than it is (protocol.Plain), trimmed.
func plain(s string) string { return strings.TrimSpace(protocol.Plain(s)) }

// clip cuts s to n characters, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// page writes the report's lines, each wrapped to Width.
type page struct {
	b     strings.Builder
	md    bool
	blank bool // the last line written is empty
}

// esc is text from outside warden (names, titles, reasons, dialogs) as the
// page shows it: plain, and escaped in Markdown.
func (p *page) esc(s string) string {
	s = plain(s)
	if p.md {
		return mdtext.Escape(s) // nothing of it becomes HTML, a link or a code span (issue 33)
	}
	return s
}

// line writes one logical line, wrapped: its continuation lines indented
// by indent spaces.
func (p *page) line(indent int, format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	width := Width - indent
	if p.md {
		width-- // room for an escape's backslash moved down (below)
	}
	lines := strings.Split(ansi.Wrap(s, width, ""), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if i > 0 {
			l = strings.Repeat(" ", indent) + strings.TrimLeft(l, " ")
		}
		// A line cut between an escape's backslash and what it escapes
		// would leave "<script>" bare at the start of the next: the
		// backslash goes down with it.
		if p.md && i+1 < len(lines) && mdtext.Dangling(l) {
			l = l[:len(l)-1]
			lines[i+1] = "\\" + strings.TrimLeft(lines[i+1], " ")
		}
		p.b.WriteString(l + "\n")
	}
	p.blank = false
}

// gap writes an empty line, unless the last one is.
func (p *page) gap() {
	if !p.blank {
		p.b.WriteString("\n")
		p.blank = true
	}
}

// heading writes a "## " heading (level 2) with a blank line after it.
func (p *page) heading(format string, a ...any) {
	p.gap()
	p.line(3, "## "+format, a...)
	p.gap()
}

// dur is seconds as a person writes them ("45s", "12m", "1h05m").
func dur(sec float64) string {
	return queue.Short(time.Duration(sec * float64(time.Second)).Round(time.Second))
}

// plural is "1 restart", "2 restarts".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// clock writes times of the run: the time of day on the run's first day,
// with the date after it.
type clock struct{ day time.Time }

func (c clock) at(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	l := t.Local()
	y, m, d := c.day.Date()
	if ly, lm, ld := l.Date(); ly == y && lm == m && ld == d {
		return l.Format("15:04:05")
	}
	return l.Format("Jan 2 15:04:05")
}

// count is a token figure as a person reads it: 950, 12.3k, 1.25M.
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// worked is the time worked beside the estimate.
func worked(sec, est float64) string {
	if est <= 0 {
		return dur(sec) + " (no estimate)"
	}
	out := fmt.Sprintf("%s of %s estimated", dur(sec), dur(est))
	if sec > est {
		out += fmt.Sprintf(", over by %s", dur(sec-est))
	}
	return out
}

// counts is a task's checkpoints, rejections, restarts…
func counts(t Task) string {
	out := plural(t.Checkpoints, "checkpoint")
	for _, x := range []struct {
		n    int
		word string
	}{{t.Rejected, "rejected"}, {t.Timeouts, "timed out"}, {t.Restarts, "restarts"}, {t.VerifyFailed, "failed verify"}} {
		if x.n > 0 {
			if x.word == "restarts" {
				out += ", " + plural(x.n, "restart")
			} else {
				out += fmt.Sprintf(", %d %s", x.n, x.word)
			}
		}
	}
	if t.ReviewRounds > 0 {
		out += ", " + plural(t.ReviewRounds, "review round")
	}
	return out
}

// spend is tokens and dollars in a few words.
func spend(s Spend) string {
	out := fmt.Sprintf("%s tokens in (%s cached), %s out", count(s.Tokens.Input), count(s.Tokens.CachedInput), count(s.Tokens.Output))
	if s.Priced {
		out += fmt.Sprintf(", $%.2f", s.CostUSD)
	}
	return out
}
