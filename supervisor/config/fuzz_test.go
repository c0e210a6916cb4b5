//go:build !e2e

package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/internal/safefile"
)

// addSeeds adds every testdata team file and the tricky index document.
func addSeeds(f *testing.F) {
	files, err := filepath.Glob("testdata/*.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(tricky))
}

// FuzzParse: Parse never panics; on success the team is valid as documented;
// on failure every error has a position inside the input.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	path := filepath.Join("testdata", "fuzz.toml") // prompt_file can reach testdata/prompts
	f.Fuzz(func(t *testing.T, data []byte) {
		team, err := Parse(path, data)
		if err != nil {
			es, ok := AsErrors(err)
			if !ok || len(es) == 0 {
				t.Fatalf("error is not a non-empty Errors: %v", err)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range es {
				if e.Pos.File != path || e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
					t.Fatalf("error %q has position outside the input (%d lines)", e, lines)
				}
			}
			return
		}
		checkTeam(t, team)
	})
}

func checkTeam(t *testing.T, team *Team) {
	t.Helper()
	if len(team.Agents) == 0 || team.ContextThreshold < 1 || team.ContextThreshold > 100 ||
		team.CheckpointInterval <= 0 || team.StaleFailure <= team.StaleWarning ||
		!strings.HasPrefix(team.SignalFile, team.StateDir+string(filepath.Separator)) {
		t.Fatalf("invalid team accepted: %+v", team)
	}
	if (team.OnDialog != DialogWait && team.OnDialog != DialogDeny) || team.DialogTimeout <= 0 ||
		team.MaxRuntime < 0 || team.LogMaxSize < MinLogMaxSize || team.LogKeep < 1 {
		t.Fatalf("invalid team accepted: %+v", team)
	}
	if _, ok := team.NextStop(time.Now()); ok != (team.StopAt != "") {
		t.Fatalf("stop_at %q accepted but not usable", team.StopAt)
	}
	if _, bad := controlIn(team.Name); bad {
		t.Fatalf("team name %q with a control character accepted", team.Name)
	}
	if _, err := safefile.CheckStateDir(team.StateDir); err != nil {
		t.Fatalf("state_dir %s accepted: %v", team.StateDir, err)
	}
	for _, a := range team.Agents {
		p := team.Dialog(&a)
		if !ValidName(a.Name) || len(a.Command) == 0 || strings.TrimSpace(a.Command[0]) == "" ||
			!filepath.IsAbs(a.Dir) || a.MaxRestarts < 0 || a.DialogTimeout < 0 ||
			(p.On != DialogWait && p.On != DialogDeny) || p.Timeout <= 0 {
			t.Fatalf("invalid agent accepted: %+v", a)
		}
		if fi, err := os.Stat(a.Dir); err != nil || !fi.IsDir() {
			t.Fatalf("agent dir %s accepted: %v", a.Dir, err)
		}
		if strings.Contains(a.Command[0], "/") && notExecutable(a.Dir, a.Command[0]) != "" {
			t.Fatalf("command %q accepted: %s", a.Command[0], notExecutable(a.Dir, a.Command[0]))
		}
	}
	for _, n := range team.Notify {
		if len(n.Events) == 0 || (n.URL == "" && (len(n.Command) == 0 || strings.TrimSpace(n.Command[0]) == "")) ||
			n.Timeout <= 0 || n.MinInterval < 0 {
			t.Fatalf("invalid notify accepted: %+v", n)
		}
		for _, e := range n.Events {
			if !KnownEvent(e) && (e != NotifyAll || len(n.Events) != 1) {
				t.Fatalf("notify with event %q accepted: %+v", e, n)
			}
		}
	}
	for _, task := range team.Tasks {
		if _, bad := controlIn(task.Title); bad {
			t.Fatalf("task title %q with a control character accepted", task.Title)
		}
		if !ValidName(task.ID) || task.Prompt == "" || task.MaxAttempts < 0 || task.MaxTime < 0 {
			t.Fatalf("invalid task accepted: %+v", task)
		}
		if _, ok := team.Agent(task.Agent); task.Agent != "" && !ok {
			t.Fatalf("task %s names unknown agent %q", task.ID, task.Agent)
		}
	}
}

// FuzzPosIndex: the scanner never panics or loops on any input, and for a
// document toml accepts, every key, table and array element the decoder
// produced has a recorded position, at its key (or its header) where it is a key.
func FuzzPosIndex(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ix := newPosIndex("f.toml", data)
		var doc map[string]any
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return
		}
		walkPaths("", doc, func(path, key string) {
			off, ok := ix.pos[path]
			if !ok {
				t.Fatalf("no position for %s", path)
			}
			if key == "" {
				return
			}
			if !keyStart(data, off) {
				t.Fatalf("position of %s is not the start of a key or header: %q", path, data[off:min(len(data), off+20)])
			}
		})
	})
}

// keyStart reports whether off is where a key or a table header starts: a
// '[' of a header, or a key character after a line start, '{' or ','.
func keyStart(data []byte, off int) bool {
	if off >= len(data) {
		return false
	}
	if c := data[off]; c == '[' {
		return true
	} else if c != '"' && c != '\'' && !isBareByte(c) {
		return false
	}
	i := off - 1
	for i >= 0 && (data[i] == ' ' || data[i] == '\t') {
		i--
	}
	return i < 0 || data[i] == '\n' || data[i] == '{' || data[i] == ','
}

// walkPaths calls fn with the path of every key (and its name) and of every
// array element (with an empty name) in a decoded document.
func walkPaths(base string, v any, fn func(path, key string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := pathKey(base, k)
			fn(p, k)
			walkPaths(p, e, fn)
		}
	case []map[string]any:
		for i, e := range v {
			p := pathIndex(base, i)
			fn(p, "")
			walkPaths(p, e, fn)
		}
	case []any:
		for i, e := range v {
			p := pathIndex(base, i)
			fn(p, "")
			walkPaths(p, e, fn)
		}
	}
}
