package handoff

import (
	"regexp"
	"strings"
	"unicode"
)

// secretWords are the last words of names whose values are secrets
// (--api-key, GITHUB_TOKEN, --pass, Authorization); secretSuffixes end such
// a word written as one (PGPASSWORD, apikey, CLIENTSECRET). Only the last
// word counts: --token-limit, --password-file, --cookie-jar and
// --password-stdin take no secret, and neither do --max-tokens or
// --dangerously-bypass-approvals-and-sandbox.
var (
	secretWords = map[string]bool{
		"key": true, "keys": true, "pass": true, "pw": true, "passin": true, "passout": true,
		"auth": true, "authorization": true, "cookie": true, "cookies": true, "credential": true,
		"credentials": true, "passphrase": true, "bearer": true, "jwt": true, "pat": true,
	}
	secretSuffixes = []string{"token", "key", "secret", "password", "passwd", "pwd"}
)

// secretName reports whether a flag, variable or header name (dashes and a
// colon around it allowed) says its value is a secret.
func secretName(name string) bool {
	words := nameWords(strings.TrimLeft(name, "-"))
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if secretWords[last] {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(last, s) {
			return true
		}
	}
	return false
}

// nameWords splits a name at -, _, . and lower-to-upper case changes
// (apiKey), in lower case.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	prev := rune(0)
	for _, c := range name {
		switch {
		case c == '-' || c == '_' || c == '.':
			words, cur = appendWord(words, cur), nil
		case unicode.IsUpper(c) && unicode.IsLower(prev):
			words, cur = appendWord(words, cur), []rune{c}
		default:
			cur = append(cur, c)
		}
		prev = c
	}
	return appendWord(words, cur)
}

func appendWord(words []string, w []rune) []string {
	if len(w) == 0 {
		return words
	}
	return append(words, strings.ToLower(string(w)))
}

// How a program's own short flag carries a secret (progFlags).
const (
	none     = iota
	next     // the next argument, or attached (sshpass -p X, -pX)
	attached // only attached: mysql -pSECRET (-p DB names a database)
)

// progFlags are programs' short flags whose values are secrets.
var progFlags = map[string]map[string]int{
	"sshpass":     {"-p": next},
	"mysql":       {"-p": attached},
	"mysqldump":   {"-p": attached},
	"mysqladmin":  {"-p": attached},
	"mariadb":     {"-p": attached},
	"redis-cli":   {"-a": next},
	"openssl":     {"-k": next, "-K": next},
	"valkey-cli":  {"-a": next},
	"mysqlimport": {"-p": attached},
}

// userFlags take user:password (curl).
var userFlags = map[string]bool{"-u": true, "--user": true, "-U": true, "--proxy-user": true}

// isScheme reports whether w is an HTTP authorization scheme word, kept
// before the credential it introduces.
func isScheme(w string) bool {
	switch strings.ToLower(w) {
	case "bearer", "basic", "token", "digest", "bot":
		return true
	}
	return false
}

// header matches "Name: value" (an HTTP header, a "password: x" in text).
var header = regexp.MustCompile(`^(\s*)([A-Za-z][A-Za-z0-9_-]*)(\s*:\s*)(\S.*)$`)

// redactHeader redacts the value of a header whose name says secret, its
// scheme word kept ("Authorization: Bearer <redacted>").
func redactHeader(a string) (string, bool) {
	m := header.FindStringSubmatch(a)
	if m == nil || !secretName(m[2]) {
		return "", false
	}
	scheme, _, _ := strings.Cut(m[4], " ")
	if isScheme(scheme) && len(scheme) < len(m[4]) {
		return m[1] + m[2] + m[3] + scheme + " " + hidden, true
	}
	return m[1] + m[2] + m[3] + hidden, true
}

// urlPassword matches the password of a URL's user info: scheme://user:PASSWORD@.
var urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*):[^/?#\s]*@`)

// urlToken matches user info without a password that is a key itself
// (https://ghp_…@github.com).
var urlToken = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)([^/?#@\s:]+)@`)

// redactURL hides the password in every URL of w, keeping the user.
func redactURL(w string) string {
	if !strings.Contains(w, "://") {
		return w
	}
	w = urlPassword.ReplaceAllString(w, "$1:"+hidden+"@")
	return urlToken.ReplaceAllStringFunc(w, func(m string) string {
		s := urlToken.FindStringSubmatch(m)
		if looksSecret(s[2]) {
			return s[1] + hidden + "@"
		}
		return m
	})
}

// keyPrefix matches credentials by their issuers' prefixes.
var keyPrefix = regexp.MustCompile(`(sk-[A-Za-z0-9_-]{16,}|sk_(live|test)_[A-Za-z0-9]{16,}|[pr]k_(live|test)_[A-Za-z0-9]{16,}|` +
	`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|` +
	`A[KS]IA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,}|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{30,}|` +
	`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`)

// quotedSecret matches "name": "value" and name = "value" (JSON, TOML)
// whose name may say secret.
var quotedSecret = regexp.MustCompile(`("?)([A-Za-z][A-Za-z0-9_.-]*)("?\s*[:=]\s*")([^"]*)(")`)

// redactEmbedded hides credentials inside a word: known key prefixes, and
// quoted values of secret names.
func redactEmbedded(w string) string {
	w = keyPrefix.ReplaceAllString(w, hidden)
	return quotedSecret.ReplaceAllStringFunc(w, func(m string) string {
		s := quotedSecret.FindStringSubmatch(m)
		if !secretName(s[2]) || s[4] == hidden {
			return m
		}
		return s[1] + s[2] + s[3] + hidden + s[5]
	})
}

// opaque matches a long string of key characters.
var opaque = regexp.MustCompile(`^[A-Za-z0-9+/_=.-]{32,}$`)

// looksSecret reports whether a value is a credential by itself: a known
// key prefix at its start, or a long opaque string mixing upper case, lower
// case and digits (or long hex) — not a path, a UUID or a dotted name.
func looksSecret(v string) bool {
	if loc := keyPrefix.FindStringIndex(v); loc != nil && loc[0] == 0 {
		return true
	}
	if !opaque.MatchString(v) || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || isUUID(v) {
		return false
	}
	var upper, lower, digit, hex bool
	hex = true
	for _, c := range v {
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
		hex = hex && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
	}
	return upper && lower && digit || hex
}

var uuid = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(v string) bool { return uuid.MatchString(v) }

// shellFields splits s at white space outside quotes, as a shell would,
// each field kept as written (quotes, backslashes); seps[i] is the white
// space before fields[i], and seps[len(fields)] what ends s.
func shellFields(s string) (fields, seps []string) {
	var quote byte
	start, sepStart := -1, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if start >= 0 {
				fields, start, sepStart = append(fields, s[start:i]), -1, i
			}
			continue
		}
		if start < 0 {
			seps, start = append(seps, s[sepStart:i]), i
		}
		switch c {
		case '\'', '"':
			quote = c
		case '\\':
			i++
		}
	}
	if start >= 0 {
		fields, sepStart = append(fields, s[start:]), len(s)
	}
	return fields, append(seps, s[sepStart:])
}
