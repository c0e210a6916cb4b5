package handoff

import (
	"path/filepath"
	"strings"
)

// hidden stands where a secret was.
const hidden = "<redacted>"

// Redact returns argv with what looks like a secret replaced by
// "<redacted>", and the rest as it was. Secrets are found where a command
// line carries them:
//
//   - a flag whose name ends in a secret word (--api-key, --token,
//     --password, --pass, -passin, --client-secret; see secretName): its
//     "=value", or the argument after it unless that is another --option;
//   - -k (an API key in several CLIs): the argument after it, unless that is
//     an option or a URL (curl's -k takes none);
//   - a NAME=value whose name says secret (OPENAI_API_KEY=…, PGPASSWORD=…);
//   - user:password after -u, --user, --proxy-user (curl), and the password
//     of a URL (https://user:secret@host/…: the user is kept);
//   - an HTTP header whose name says secret ("Authorization: Bearer X",
//     "X-Api-Key: X", "Cookie: …"): its value, the scheme word kept; and the
//     word after a lone "Bearer";
//   - a value that looks like a credential by itself (a known key prefix:
//     sk-, ghp_, github_pat_, glpat-, xoxb-, AKIA…, a JWT; or a long opaque
//     string), anywhere in an argument, and a quoted "secret_name": "value";
//   - some programs' own short flags: sshpass -p, mysql's -pPASSWORD (not
//     -p DB), redis-cli -a, openssl -k/-K.
//
// -p is kept: it is a port, a prompt or print mode (claude -p) far more
// often. An argument holding white space (sh -c 'script', a prompt, a
// header) is read word by word, as the shell would split it. The program's
// name is kept.
func Redact(argv []string) []string {
	out := make([]string, len(argv))
	var r redactor
	for i, a := range argv {
		if i == 0 {
			out[i] = a
			r.program(a)
			continue
		}
		out[i] = r.arg(a)
	}
	return out
}

// redactor reads one command line's words in order.
type redactor struct {
	next   bool   // the next argument is a secret flag's value
	short  bool   // … of a short flag (-k): one that looks like an option or URL is not
	user   bool   // the next argument is user[:password]
	header bool   // the next word is a secret header's value (its scheme kept)
	bearer bool   // the next word is a credential after its scheme word
	prog   string // the program whose own flags apply (progFlags)
}

// program notes word w when it names a program with secret short flags.
func (r *redactor) program(w string) {
	if _, ok := progFlags[filepath.Base(w)]; ok {
		r.prog = filepath.Base(w)
	}
}

// arg redacts one argument: a word, or words separated by white space.
func (r *redactor) arg(a string) string {
	if r.next {
		r.next = false
		if !r.notValue(a) {
			return hidden
		}
	}
	if !strings.ContainsAny(a, " \t\n\r") {
		return r.word(a)
	}
	if h, ok := redactHeader(a); ok {
		return h
	}
	fields, seps := shellFields(a)
	var b strings.Builder
	for i, f := range fields {
		b.WriteString(seps[i])
		b.WriteString(r.field(f))
	}
	b.WriteString(seps[len(fields)])
	return b.String()
}

// notValue reports whether a, after a flag that takes a secret, is no value
// of it: another --option, or after a short flag an option or a URL.
func (r *redactor) notValue(a string) bool {
	short := r.short
	r.short = false
	return strings.HasPrefix(a, "--") || short && (strings.HasPrefix(a, "-") || strings.Contains(a, "://"))
}

// field redacts one shell word of a script: quoted, its inside is read as an
// argument of its own.
func (r *redactor) field(f string) string {
	q := f[0]
	if len(f) < 2 || q != '\'' && q != '"' || f[len(f)-1] != q {
		return r.words(f)
	}
	inside := f[1 : len(f)-1]
	if r.next {
		r.next = false
		if !r.notValue(inside) {
			return hidden
		}
	}
	return string(q) + r.arg(inside) + string(q)
}

// words redacts a shell word that is not quoted whole — "--token='a b'", or
// an unclosed quote holding white space — word by word at its white space.
func (r *redactor) words(f string) string {
	var b strings.Builder
	for len(f) > 0 {
		i := strings.IndexAny(f, " \t\n\r")
		if i < 0 {
			i = len(f)
		}
		if i > 0 {
			b.WriteString(r.word(f[:i]))
		}
		j := i
		for j < len(f) && strings.IndexByte(" \t\n\r", f[j]) >= 0 {
			j++
		}
		b.WriteString(f[i:j])
		f = f[j:]
	}
	return b.String()
}

// word redacts one argument or word without white space.
func (r *redactor) word(w string) string {
	w = redactURL(w)
	if strings.HasPrefix(w, "--") { // another option: no value of the one before
		r.user, r.header, r.bearer = false, false, false
	}
	switch {
	case r.user:
		r.user = false
		if u, _, ok := strings.Cut(w, ":"); ok {
			return u + ":" + hidden
		}
		return w
	case r.header:
		r.header = false
		if isScheme(w) {
			r.bearer = true
			return w
		}
		return hidden
	case r.bearer:
		r.bearer = false
		return hidden
	case strings.HasPrefix(w, "-") && len(w) > 1:
		return r.flag(w)
	case strings.EqualFold(w, "bearer"):
		r.bearer = true
		return w
	case strings.HasSuffix(w, ":") && secretName(strings.TrimSuffix(w, ":")):
		r.header = true // Authorization: …, password: …
		return w
	}
	r.program(w)
	if name, value, ok := strings.Cut(w, "="); ok && name != "" {
		if secretName(name) || looksSecret(value) {
			return name + "=" + hidden
		}
	}
	if looksSecret(w) {
		return hidden
	}
	return redactEmbedded(w)
}

// flag redacts an option, and notes when the next argument is its value.
func (r *redactor) flag(w string) string {
	name, value, hasValue := strings.Cut(w, "=")
	switch {
	case userFlags[name]:
		if hasValue {
			if u, _, ok := strings.Cut(value, ":"); ok {
				return name + "=" + u + ":" + hidden
			}
			return w
		}
		r.user = true
		return w
	case secretName(name) || name == "-k" || progFlags[r.prog][name] == next:
		if hasValue {
			return name + "=" + hidden
		}
		r.next, r.short = true, !strings.HasPrefix(name, "--")
		return w
	}
	// A program's flag with its value attached: mysql -pSECRET.
	if len(name) > 2 && !strings.HasPrefix(name, "--") && progFlags[r.prog][name[:2]] != none {
		return name[:2] + hidden
	}
	if hasValue && looksSecret(value) {
		return name + "=" + hidden
	}
	return redactEmbedded(w)
}
