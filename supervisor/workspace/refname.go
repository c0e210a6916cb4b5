package workspace

import "strings"

// RefComponentProblem says why s cannot be one component of a branch name
// (git check-ref-format's rules: what `git check-ref-format --branch
// warden/team/s` refuses), or "" when it can. A task's id is the last
// component of its branch and the name of its worktree's directory.
func RefComponentProblem(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case strings.HasPrefix(s, "."):
		return "must not start with '.'"
	case strings.HasSuffix(s, "."):
		return "must not end with '.'"
	case strings.HasSuffix(s, ".lock"):
		return "must not end with \".lock\""
	case strings.Contains(s, ".."):
		return "must not contain \"..\""
	case strings.Contains(s, "@{"):
		return "must not contain \"@{\""
	case strings.Contains(s, "/"):
		return "must be one component, without '/'"
	case strings.ContainsAny(s, " ~^:?*[\\"):
		return "must not contain a space or any of ~^:?*[\\"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "must not contain a control character"
		}
	}
	return ""
}
