package config

import (
	"bytes"
	"strconv"
	"strings"
)

// maxDepth bounds nesting of arrays and inline tables the scanner follows.
const maxDepth = 200

// scanner walks TOML source for posIndex: table headers, keys (bare, quoted,
// dotted), and values, descending into arrays and inline tables and skipping
// strings of all four kinds, comments and scalars.
type scanner struct {
	src    []byte
	i      int
	ix     *posIndex
	table  string         // path of the current [table] or [[array]] element
	arrays map[string]int // path of every [[array]] → number of elements so far
	depth  int
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

func (s *scanner) peek(off int) byte {
	if s.i+off < len(s.src) {
		return s.src[s.i+off]
	}
	return 0
}

func (s *scanner) document() {
	for {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		start := s.i
		if s.src[s.i] == '[' {
			s.header()
		} else {
			s.keyValue(s.table)
		}
		s.skipLine()
		if s.i == start { // never loop without progress
			s.i++
		}
	}
}

// skipSpace skips blanks, comments and, if newlines, line ends.
func (s *scanner) skipSpace(newlines bool) {
	for !s.eof() {
		switch c := s.src[s.i]; {
		case c == ' ' || c == '\t':
			s.i++
		case newlines && (c == '\n' || c == '\r'):
			s.i++
		case c == '#':
			for !s.eof() && s.src[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

// skipLine moves past the end of the current line.
func (s *scanner) skipLine() {
	for !s.eof() && s.src[s.i] != '\n' {
		s.i++
	}
}

// header reads `[a.b]` or `[[a.b]]` and makes it the current table.
func (s *scanner) header() {
	start := s.i
	array := s.peek(1) == '['
	s.i++
	if array {
		s.i++
	}
	segs := s.key()
	path := ""
	for j, seg := range segs {
		path = pathKey(path, seg)
		if array && j == len(segs)-1 {
			n := s.arrays[path]
			s.arrays[path] = n + 1
			s.ix.setOnce(path, start)
			path = pathIndex(path, n)
		} else if n, ok := s.arrays[path]; ok && n > 0 {
			path = pathIndex(path, n-1)
		}
		if j == len(segs)-1 {
			s.ix.set(path, start)
		} else {
			s.ix.setOnce(path, start)
		}
	}
	s.table = path
}

// key reads a possibly dotted key and returns its segments.
func (s *scanner) key() []string {
	var segs []string
	for {
		s.skipSpace(false)
		seg, ok := s.keySegment()
		if !ok {
			return segs
		}
		segs = append(segs, seg)
		s.skipSpace(false)
		if s.peek(0) != '.' {
			return segs
		}
		s.i++
	}
}

func (s *scanner) keySegment() (string, bool) {
	switch c := s.peek(0); {
	case c == '"' || c == '\'':
		start := s.i
		s.skipString()
		raw := s.src[start:s.i]
		if c == '\'' {
			return string(bytes.Trim(raw, "'")), true
		}
		if u, err := strconv.Unquote(string(raw)); err == nil {
			return u, true
		}
		return string(bytes.Trim(raw, `"`)), true
	case isBareByte(c):
		start := s.i
		for !s.eof() && isBareByte(s.src[s.i]) {
			s.i++
		}
		return string(s.src[start:s.i]), true
	}
	return "", false
}

// keyValue reads `key = value` inside the table at path base.
func (s *scanner) keyValue(base string) {
	start := s.i
	segs := s.key()
	if len(segs) == 0 {
		return
	}
	path := base
	for j, seg := range segs {
		path = pathKey(path, seg)
		if j < len(segs)-1 {
			s.ix.setOnce(path, start)
		}
	}
	s.ix.set(path, start)
	s.skipSpace(false)
	if s.peek(0) != '=' {
		return
	}
	s.i++
	s.skipSpace(false)
	s.value(path)
}

// value skips one value, recording the elements of arrays and the keys of
// inline tables under path.
func (s *scanner) value(path string) {
	if s.depth >= maxDepth {
		s.skipLine()
		return
	}
	s.depth++
	defer func() { s.depth-- }()
	switch s.peek(0) {
	case '"', '\'':
		s.skipString()
	case '[':
		s.array(path)
	case '{':
		s.inlineTable(path)
	default:
		s.scalar()
	}
}

func (s *scanner) array(path string) {
	s.i++
	for n := 0; ; {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		switch s.src[s.i] {
		case ']':
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		start := s.i
		elem := pathIndex(path, n)
		s.ix.set(elem, start)
		s.value(elem)
		n++
		if s.i == start {
			s.i++
		}
	}
}

func (s *scanner) inlineTable(path string) {
	s.i++
	for {
		s.skipSpace(true) // TOML 1.1 allows newlines in inline tables
		if s.eof() {
			return
		}
		switch s.src[s.i] {
		case '}':
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		start := s.i
		s.keyValue(path)
		if s.i == start {
			s.i++
		}
	}
}

// scalar skips a number, boolean or date-time (whose date and time may be
// separated by one space).
func (s *scanner) scalar() {
	start := s.i
	for !s.eof() && strings.IndexByte(" \t\r\n,]}#", s.src[s.i]) < 0 {
		s.i++
	}
	if s.i-start == 10 && s.src[start+4] == '-' && s.src[start+7] == '-' &&
		s.peek(0) == ' ' && s.peek(1) >= '0' && s.peek(1) <= '9' {
		s.i++
		s.scalar()
	}
}

// skipString skips a basic, literal, multi-line basic or multi-line literal
// string starting at the current quote.
func (s *scanner) skipString() {
	q := s.src[s.i]
	if s.peek(1) == q && s.peek(2) == q {
		s.i += 3
		for !s.eof() {
			if q == '"' && s.src[s.i] == '\\' {
				s.i += 2
				continue
			}
			if s.src[s.i] == q && s.peek(1) == q && s.peek(2) == q {
				s.i += 3
				for k := 0; k < 2 && s.peek(0) == q; k++ { // up to two quotes end the content
					s.i++
				}
				return
			}
			s.i++
		}
		return
	}
	s.i++
	for !s.eof() && s.src[s.i] != '\n' {
		c := s.src[s.i]
		if q == '"' && c == '\\' {
			s.i += 2
			continue
		}
		s.i++
		if c == q {
			return
		}
	}
}
