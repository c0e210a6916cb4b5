package handoff

import (
	"regexp"
	"strings"
)

// secretName matches flag and variable names whose values are secrets.
var secretName = regexp.MustCompile(`(?i)(key|token|secret|passw|auth|credential|cookie|session)`)

// secretValue matches values that look like credentials on their own: API
// keys by their known prefixes, and long opaque strings.
var secretValue = regexp.MustCompile(`^(sk-|sk_|pk_|rk_|ghp_|gho_|ghs_|github_pat_|xox[abprs]-|AKIA|AIza|ya29\.)|^[A-Za-z0-9+/_=-]{32,}$`)

// Redact returns argv with what looks like a secret replaced by
// "<redacted>": the value of a --flag=value or NAME=value whose name says
// secret, the argument after such a flag, and any argument that looks like
// a key itself. The program's name is kept.
func Redact(argv []string) []string {
	out := make([]string, len(argv))
	next := false
	for i, a := range argv {
		switch {
		case i == 0:
			out[i] = a
		case next:
			out[i], next = "<redacted>", false
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && secretName.MatchString(a):
			out[i], next = a, true
		case strings.Contains(a, "="):
			name, value, _ := strings.Cut(a, "=")
			if secretName.MatchString(name) || secretValue.MatchString(value) {
				out[i] = name + "=<redacted>"
			} else {
				out[i] = a
			}
		case secretValue.MatchString(a):
			out[i] = "<redacted>"
		default:
			out[i] = a
		}
	}
	return out
}
