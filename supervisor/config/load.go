package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// Load reads and validates the team file at path. When the file is invalid the
// error is Errors, sorted by position; when it cannot be read, a wrapped
// *os.PathError.
func Load(path string) (*Team, error) {
	data, err := read(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// LoadWithWarnings is Load, and the file's warnings: what validates but
// will likely not work (warnings.go). A file with errors has its warnings
// too (of what could be decoded), for `warden validate` to show beside
// them; its team is nil.
func LoadWithWarnings(path string) (*Team, []Warning, error) {
	data, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	team, ix, err := decode(path, data)
	var ws []Warning
	if team != nil {
		ws = warnings(team, ix)
	}
	if err != nil {
		return nil, ws, err
	}
	return team, ws, nil
}

// read reads the team file at path, refusing one past MaxFileSize.
func read(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxFileSize {
		return nil, tooLarge(path, fi.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read team file: %w", err)
	}
	return data, nil
}

// Parse validates a team file given as bytes. path is used in positions (as
// given) and, made absolute, as the base of relative paths; prompt_file
// references are read from disk.
func Parse(path string, data []byte) (*Team, error) {
	team, _, err := parse(path, data)
	return team, err
}

// parse is Parse, and where each key is.
func parse(path string, data []byte) (*Team, *posIndex, error) {
	team, ix, err := decode(path, data)
	if err != nil {
		return nil, nil, err
	}
	return team, ix, nil
}

// decode is parse, with the team as far as it was decoded even when the
// file has errors (nil for one that is no TOML at all).
func decode(path string, data []byte) (*Team, *posIndex, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve team file %s: %w", path, err)
	}
	if err := checkLimits(path, data); err != nil {
		return nil, nil, err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, nil, Errors{syntaxError(path, data, err)}
	}
	d := &decoder{dir: filepath.Dir(abs), ix: newPosIndex(path, data)}
	team := d.team(abs, doc)
	if len(d.errs) > 0 {
		return team, d.ix, d.errs.sorted()
	}
	return team, d.ix, nil
}

// syntaxError turns a toml decoding error into an Error at its position.
func syntaxError(file string, data []byte, err error) Error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return Error{Pos: Position{File: file, Line: 1, Col: 1}, Msg: "syntax error: " + err.Error()}
	}
	pos := Position{File: file, Line: max(pe.Position.Line, 1), Col: 1}
	start := pe.Position.Start
	for k := 1; k < pe.Position.Len && start >= 0 && start < len(data) && (data[start] == ' ' || data[start] == '\t'); k++ {
		start++ // toml's span may begin at the blank before the offending text
	}
	if start >= 0 && start <= len(data) {
		line := 1 + strings.Count(string(data[:start]), "\n")
		if line == pos.Line || pe.Position.Line == 0 {
			lineStart := strings.LastIndexByte(string(data[:start]), '\n') + 1
			pos.Line = line
			pos.Col = utf8.RuneCount(data[lineStart:start]) + 1
		}
	}
	return Error{Pos: pos, Msg: "syntax error: " + pe.Message}
}

// decoder validates the decoded document, collecting every problem.
type decoder struct {
	dir  string    // absolute directory of the team file
	ix   *posIndex // where every key is
	errs Errors    // problems so far
	seen seenNames // agent names and task ids, for duplicates
}

// errorf records a problem at the position of path.
func (d *decoder) errorf(path, format string, args ...any) {
	d.errs = append(d.errs, Error{Pos: d.ix.at(path), Msg: fmt.Sprintf(format, args...)})
}

// resolve makes p absolute, relative to the team file's directory.
func (d *decoder) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(d.dir, p)
}

// seenNames remembers names by kind and lower-case form.
type seenNames map[string]seenName

type seenName struct{ name, path string }

// dup reports (and records an error for) a name equal to an earlier one of the
// same kind, ignoring case: state dirs may be on case-insensitive file systems.
func (d *decoder) dup(kind, name, path string) bool {
	if d.seen == nil {
		d.seen = make(seenNames)
	}
	key := kind + "\x00" + strings.ToLower(name)
	first, ok := d.seen[key]
	if !ok {
		d.seen[key] = seenName{name: name, path: path}
		return false
	}
	line := d.ix.at(first.path).Line
	if first.name != name {
		d.errorf(path, "duplicate %s %q (%q at line %d differs only in case)", kind, name, first.name, line)
	} else {
		d.errorf(path, "duplicate %s %q (first at line %d)", kind, name, line)
	}
	return true
}
