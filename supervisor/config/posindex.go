package config

import (
	"strconv"
	"unicode/utf8"
)

// posIndex maps the path of every key, table header and array element of a
// TOML document to where it starts. BurntSushi/toml v1.6 keeps no positions for
// decoded keys (and one [[agent]]'s "name" is the same key as the next one's),
// so the index is built by scanning the source, which toml has already parsed
// successfully. The scanner is defensive all the same: on input it does not
// understand it skips to the end of the line, and it never panics.
//
// A path is made of key segments joined by '.', and array indices in
// brackets: `agent[1].env.HOME`, `task[0].blocked_by[2]`. A segment that is not
// a bare key is quoted with strconv.Quote (see pathKey). Both [[agent]] tables
// and an inline `agent = [{…}, {…}]` produce agent[0], agent[1], ….
type posIndex struct {
	file       string
	src        []byte
	lineStarts []int // byte offset of the start of every line
	pos        map[string]int
}

// pathKey appends key segment seg to path base.
func pathKey(base, seg string) string {
	if !isBare(seg) {
		seg = strconv.Quote(seg)
	}
	if base == "" {
		return seg
	}
	return base + "." + seg
}

// pathIndex appends array index i to path base.
func pathIndex(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

func isBare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isBareByte(s[i]) {
			return false
		}
	}
	return true
}

func isBareByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// newPosIndex scans src and records the start of every key it finds.
func newPosIndex(file string, src []byte) *posIndex {
	ix := &posIndex{file: file, src: src, pos: make(map[string]int), lineStarts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			ix.lineStarts = append(ix.lineStarts, i+1)
		}
	}
	s := scanner{src: src, ix: ix, arrays: make(map[string]int)}
	s.document()
	return ix
}

// at returns the position recorded for path, or for its nearest recorded
// parent, or the start of the file.
func (ix *posIndex) at(path string) Position {
	for path != "" {
		if off, ok := ix.pos[path]; ok {
			return ix.position(off)
		}
		path = parentPath(path)
	}
	return Position{File: ix.file, Line: 1, Col: 1}
}

// has reports whether path was recorded.
func (ix *posIndex) has(path string) bool {
	_, ok := ix.pos[path]
	return ok
}

// position converts a byte offset into a line and a character column.
func (ix *posIndex) position(off int) Position {
	if off < 0 {
		off = 0
	}
	if off > len(ix.src) {
		off = len(ix.src)
	}
	lo, hi := 0, len(ix.lineStarts)-1
	for lo < hi { // last line start <= off
		mid := (lo + hi + 1) / 2
		if ix.lineStarts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	col := utf8.RuneCount(ix.src[ix.lineStarts[lo]:off]) + 1
	return Position{File: ix.file, Line: lo + 1, Col: col}
}

// set records path at off, replacing an earlier record.
func (ix *posIndex) set(path string, off int) { ix.pos[path] = off }

// setOnce records path at off unless it is already recorded (a table made
// implicitly by a dotted key or a header keeps its first position).
func (ix *posIndex) setOnce(path string, off int) {
	if _, ok := ix.pos[path]; !ok {
		ix.pos[path] = off
	}
}

// parentPath drops the last segment or index of path; quoted segments may
// contain '.' or '[', so the path is walked from the front.
func parentPath(path string) string {
	last := 0
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '"':
			for i++; i < len(path) && path[i] != '"'; i++ {
				if path[i] == '\\' {
					i++
				}
			}
		case '.', '[':
			last = i
		}
	}
	return path[:last]
}
