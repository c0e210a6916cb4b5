package protocol

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Extra lines. A block is never rejected for a line warden does not know
// (DESIGN §4): a line of the form "Key: value" inside an open block is kept
// in the record's extra map, Extra[Key] = value. What counts as a key:
//
//   - one to maxKeyWords words of letters, digits, '-' or '_', one space
//     apart, starting with a letter, at most maxKeyLen bytes ("Confidence",
//     "Test Results", "Step 3");
//   - right after it a colon, then a space or the end of the line: a URL
//     ("https://…"), a time ("12:30") or a location ("a.go:12: …", which
//     has a '.') is never a key;
//   - the line is not a list item ("- Key: value" is an item of the list
//     before it) and not a Markdown table row ("| a | b |" starts with '|');
//   - the key does not hold warden's word CHECKPOINT: "CHECKPOINT REQUEST:
//     T1 (…)", the echo of warden's typing, or "TEAM CHECKPOINT: manual",
//     never joins a block.
//
// Reply markers and "**" bold are taken off first, as for the known keys.
// A key that starts with a lower-case letter right after a line that a
// text line would continue (Notes:, Resume:, Phase:, Current Step:, an extra
// value, a list item) is read as that continuation instead: a hard-wrapped
// Notes line that happens to start "the parser: now …" stays in Notes. A
// key with an upper-case letter is a key there too ("Confidence: high"
// after Notes).
//
// Bounds, so that a flood cannot grow a record without limit: at most
// maxExtraKeys keys in a block (later new keys are read as part of the block
// and dropped), a value cut at maxExtraValue bytes; a repeated key keeps its
// first value. A value that is empty or a placeholder ("<…>", "[…]", "[N]")
// is dropped, key and all.
const (
	maxKeyWords   = 4
	maxKeyLen     = 32
	maxExtraKeys  = 16
	maxExtraValue = 500
)

// extraKey reads s (markers already taken off) as an unknown "Key: value"
// line.
func extraKey(s string) (key, value string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i < 1 || i > maxKeyLen || i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' {
		return "", "", false
	}
	key = s[:i]
	words := 1
	for j, r := range key {
		switch {
		case j == 0:
			if !unicode.IsLetter(r) {
				return "", "", false
			}
		case r == ' ':
			if key[j-1] == ' ' {
				return "", "", false
			}
			words++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
		default:
			return "", "", false
		}
	}
	if words > maxKeyWords || key[len(key)-1] == ' ' || strings.Contains(key, "CHECKPOINT") {
		return "", "", false
	}
	return key, strings.TrimSpace(s[i+1:]), true
}

// upperKey reports whether an extra key starts with an upper-case letter.
func (l line) upperKey() bool {
	r, _ := utf8.DecodeRuneInString(l.key)
	return unicode.IsUpper(r)
}

// setExtra starts the value of extra key k (see the bounds above).
func (p *blockParser) setExtra(k, v string) {
	p.extraKey = ""
	if _, dup := p.extra[k]; dup || len(p.extra) >= maxExtraKeys {
		return
	}
	if p.extra == nil {
		p.extra = map[string]string{}
	}
	p.extra[k] = cutValue(v)
	p.extraKey = k
}

// appendExtra continues the current extra value: a hard-wrapped line joined
// with a space, a list item with "; ".
func (p *blockParser) appendExtra(t, sep string) {
	v, ok := p.extra[p.extraKey]
	if !ok || len(v) >= maxExtraValue {
		return
	}
	if v != "" {
		v += sep
	}
	p.extra[p.extraKey] = cutValue(v + t)
}

// cutValue cuts v at maxExtraValue bytes, on a character boundary.
func cutValue(v string) string {
	if len(v) <= maxExtraValue {
		return v
	}
	n := maxExtraValue
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

// extras is the record's extra map: the values kept, without the empty
// ones and the placeholders; nil when none is left.
func (p *blockParser) extras() map[string]string {
	var out map[string]string
	for k, v := range p.extra {
		if v == "" || isPlaceholder(v) {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(p.extra))
		}
		out[k] = v
	}
	return out
}
