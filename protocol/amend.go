package protocol

import (
	"slices"
	"strings"
)

// completes reports whether block b is block prev completed by optional
// lines that came late: the same task and required lines, and optional
// lines (Blockers, Notes, Resume, the seeds' lines, extra keys) that keep
// what prev had and add to it.
func completes(b, prev *Block) bool {
	if b.Task != prev.Task || b.Status != prev.Status || b.Progress != prev.Progress ||
		!slices.Equal(b.Completed, prev.Completed) || !slices.Equal(b.Remaining, prev.Remaining) ||
		!slices.Equal(b.FilesModified, prev.FilesModified) {
		return false
	}
	keeps, adds := true, false
	list := func(n, p int, prefix bool) {
		keeps = keeps && n >= p && prefix
		adds = adds || n > p
	}
	text := func(s, p string) {
		keeps = keeps && strings.HasPrefix(s, p)
		adds = adds || len(s) > len(p)
	}
	list(len(b.Blockers), len(prev.Blockers), hasPrefix(b.Blockers, prev.Blockers))
	list(len(b.FilesCreated), len(prev.FilesCreated), hasPrefix(b.FilesCreated, prev.FilesCreated))
	list(len(b.Errors), len(prev.Errors), hasPrefix(b.Errors, prev.Errors))
	text(b.Notes, prev.Notes)
	text(b.Resume, prev.Resume)
	text(b.Phase, prev.Phase)
	text(b.CurrentStep, prev.CurrentStep)
	switch s, p := b.Subtasks, prev.Subtasks; {
	case p == nil:
		adds = adds || s != nil
	case s == nil:
		keeps = false
	default:
		list(len(s.Items), len(p.Items), hasPrefix(s.Items, p.Items))
		keeps = keeps && (len(s.Items) > len(p.Items) || s.Done == p.Done && s.Total == p.Total)
	}
	for k, v := range prev.Extra {
		w, ok := b.Extra[k]
		keeps = keeps && ok && strings.HasPrefix(w, v)
		adds = adds || len(w) > len(v)
	}
	adds = adds || len(b.Extra) > len(prev.Extra)
	return keeps && adds
}

// hasPrefix reports whether list a starts with list p.
func hasPrefix[T comparable](a, p []T) bool {
	return len(a) >= len(p) && slices.Equal(a[:len(p)], p)
}

// isOptional reports whether f is a field a block may do without.
func isOptional(f field) bool {
	switch f {
	case fieldBlockers, fieldNotes, fieldResume, fieldPhase, fieldStep, fieldSubtasks, fieldCreated, fieldErrors, fieldExtra:
		return true
	}
	return false
}
