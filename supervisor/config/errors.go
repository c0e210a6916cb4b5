package config

import (
	"errors"
	"regexp"
	"sort"
	"strings"
)

// Error is one problem in a team file, at the position of the offending key.
type Error struct {
	Pos Position
	Msg string
}

// Error formats the problem as `team.toml:12:3: unknown key "comand" in [[agent]]`.
func (e Error) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

// Errors is every problem found in a team file, sorted by position.
type Errors []Error

// Error joins the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// AsErrors reports whether err is (or wraps) a team file's Errors and returns them.
func AsErrors(err error) (Errors, bool) {
	var es Errors
	if errors.As(err, &es) {
		return es, true
	}
	return nil, false
}

// sorted returns the errors ordered by position, keeping the order of
// errors at the same position, without exact duplicates.
func (es Errors) sorted() Errors {
	out := make(Errors, len(es))
	copy(out, es)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.before(out[j].Pos) })
	dedup := out[:0]
	for i, e := range out {
		if i > 0 && e == out[i-1] {
			continue
		}
		dedup = append(dedup, e)
	}
	return dedup
}

// maxNameLen bounds agent names and task ids, which become parts of file names.
const maxNameLen = 100

var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// ValidName reports whether s can name an agent or a task: it must match
// [A-Za-z0-9._-]+, be at most 100 characters and not be "." or "..", because
// it becomes part of file names in the state dir.
func ValidName(s string) bool {
	return nameProblem(s) == ""
}

// nameProblem says what is wrong with s as an agent name or task id, or "".
func nameProblem(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > maxNameLen:
		return "must be at most 100 characters"
	case !namePattern.MatchString(s):
		return "must match [A-Za-z0-9._-]+ (it becomes part of file names)"
	case s == "." || s == "..":
		return "must not be \".\" or \"..\""
	}
	return ""
}
