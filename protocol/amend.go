package protocol

import (
	"slices"
	"strings"
)

// completes reports whether block b, with canonical words words, is block
// prev (prevWords) completed by optional lines that came late: the same
// task and required lines, and either optional lines (Blockers, Notes,
// Resume, the seeds' lines, extra keys) that keep what prev had and add to
// it, or a text that continues prev's (drawnFurther). A TUI read at a pause
// may have drawn the last optional line only in part: a text, or the last
// item of a list, that b has grown ("the fix" → "the fixture is down")
// keeps it too.
func completes(b, prev *Block, words, prevWords string) bool {
	if b.Task != prev.Task || b.Status != prev.Status || b.Progress != prev.Progress ||
		!slices.Equal(b.Completed, prev.Completed) || !slices.Equal(b.Remaining, prev.Remaining) ||
		!slices.Equal(b.FilesModified, prev.FilesModified) {
		return false
	}
	return addsTo(b, prev) || drawnFurther(words, prevWords)
}

// drawnFurther reports whether text (canonical words, each followed by a
// space) is prev drawn further: prev's words, the last of them perhaps in
// part, then more. A TUI read while it drew a key line in part ("Subt")
// shows it as a continuation of the line above; this is that block whole.
func drawnFurther(words, prev string) bool {
	if prev == "" || len(words) <= len(prev) {
		return false
	}
	head := strings.TrimSuffix(prev, " ") // up to the last word's end
	return strings.HasPrefix(words, head)
}

// addsTo reports whether b's optional lines keep prev's and add to them.
func addsTo(b, prev *Block) bool {
	g := growth{keeps: true}
	g.list(grows(b.Blockers, prev.Blockers, same))
	g.list(grows(b.FilesCreated, prev.FilesCreated, same))
	g.list(grows(b.Errors, prev.Errors, func(e ErrorItem) string {
		if e.Where == "" {
			return e.Message
		}
		return e.Where + ": " + e.Message
	}))
	g.text(b.Notes, prev.Notes)
	g.text(b.Resume, prev.Resume)
	g.text(b.Phase, prev.Phase)
	g.text(b.CurrentStep, prev.CurrentStep)
	switch s, p := b.Subtasks, prev.Subtasks; {
	case p == nil:
		g.adds = g.adds || s != nil
	case s == nil:
		g.keeps = false
	default:
		keeps, adds := grows(s.Items, p.Items, func(it Subtask) string { return it.Text })
		if n := len(p.Items); n > 0 && keeps {
			keeps = s.Items[n-1].Done == p.Items[n-1].Done
		}
		counted := len(p.Items) > 0 && p.Total == len(p.Items) && s.Total == len(s.Items)
		g.list(keeps && (s.Done == p.Done && s.Total == p.Total || counted), adds)
	}
	for k, v := range prev.Extra {
		w, ok := b.Extra[k]
		g.keeps = g.keeps && ok
		g.text(w, v)
	}
	g.adds = g.adds || len(b.Extra) > len(prev.Extra)
	return g.keeps && g.adds
}

// growth sums up, field by field, whether b keeps what prev had and adds.
type growth struct{ keeps, adds bool }

func (g *growth) list(keeps, adds bool) { g.keeps, g.adds = g.keeps && keeps, g.adds || adds }

func (g *growth) text(s, p string) { g.list(strings.HasPrefix(s, p), len(s) > len(p)) }

func same(s string) string { return s }

// grows compares list b with list p by their items' text: b keeps p when
// it has p's items, the last of them perhaps grown (drawn in part in p),
// and adds to it when it has more items or that last one grew.
func grows[T comparable](b, p []T, text func(T) string) (keeps, adds bool) {
	n := len(p)
	if n == 0 {
		return true, len(b) > 0
	}
	if len(b) < n || !slices.Equal(b[:n-1], p[:n-1]) || !strings.HasPrefix(text(b[n-1]), text(p[n-1])) {
		return false, false
	}
	return true, len(b) > n || b[n-1] != p[n-1]
}

// isOptional reports whether f is a field a block may do without.
func isOptional(f field) bool {
	switch f {
	case fieldBlockers, fieldNotes, fieldResume, fieldPhase, fieldStep, fieldSubtasks, fieldCreated, fieldErrors, fieldExtra:
		return true
	}
	return false
}
