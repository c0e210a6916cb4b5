package protocol

import (
	"slices"
	"strings"
)

// completes reports whether block b is block prev completed by optional
// lines that came late: the same task and required lines, and optional
// lines (Blockers, Notes, Resume) that keep what prev had and add to it.
func completes(b, prev *Block) bool {
	if b.Task != prev.Task || b.Status != prev.Status || b.Progress != prev.Progress ||
		!slices.Equal(b.Completed, prev.Completed) || !slices.Equal(b.Remaining, prev.Remaining) ||
		!slices.Equal(b.FilesModified, prev.FilesModified) {
		return false
	}
	keeps := len(b.Blockers) >= len(prev.Blockers) && slices.Equal(b.Blockers[:len(prev.Blockers)], prev.Blockers) &&
		strings.HasPrefix(b.Notes, prev.Notes) && strings.HasPrefix(b.Resume, prev.Resume)
	adds := len(b.Blockers) > len(prev.Blockers) || len(b.Notes) > len(prev.Notes) || len(b.Resume) > len(prev.Resume)
	return keeps && adds
}

// isOptional reports whether f is a field a block may do without.
func isOptional(f field) bool {
	return f == fieldBlockers || f == fieldNotes || f == fieldResume
}
