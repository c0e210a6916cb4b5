//go:build !e2e

package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadBudget bounds one Load of any input (at most MaxFileSize bytes, so
// nesting and size are capped before decoding), with room for the race
// detector and the fuzzer's instrumentation on a busy 2-core machine.
const loadBudget = 3 * time.Second

// hostileSeeds are inputs the tester tried, for the fuzzer to
// start from: deep nesting, a file over the size cap, control characters
// in names and titles, a state_dir of "/", a missing dir and command.
func hostileSeeds() [][]byte {
	agent := "\n[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	return [][]byte{
		[]byte("x = " + strings.Repeat("[", 40000) + strings.Repeat("]", 40000) + agent),
		[]byte("x = " + strings.Repeat("{a=", 100) + "1" + strings.Repeat("}", 100) + agent),
		append([]byte("# "), bytes.Repeat([]byte("x"), MaxFileSize+1)...),
		[]byte("name = \"a\\n| b |\"" + agent + "[[task]]\nid = \"T1\"\ntitle = \"\\u009b2J\\u001b]52;c;eA==\\u0007\"\nprompt = \"p\"\n"),
		[]byte("state_dir = \"/\"" + agent),
		[]byte("[[agent]]\nname = \"a\"\ncommand = [\"./nope\"]\ndir = \"nowhere\"\n"),
		[]byte("signal_file = \"../../etc/passwd\"" + agent),
	}
}

// FuzzLoad: Load of any team file on disk never panics, returns within
// loadBudget, and on failure every error has a position inside the file (a
// file over the size cap: 1:1); on success the team is valid as documented.
// Run: go test -run '^$' -fuzz FuzzLoad ./supervisor/config/
func FuzzLoad(f *testing.F) {
	addSeeds(f)
	for _, s := range hostileSeeds() {
		f.Add(s)
	}
	// The team file's directory holds what the seeds name (prompts/, work/).
	dir := f.TempDir()
	for _, sub := range []string{"prompts", "work"} {
		ents, _ := os.ReadDir(filepath.Join("testdata", sub))
		os.Mkdir(filepath.Join(dir, sub), 0o700)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join("testdata", sub, e.Name()))
			os.WriteFile(filepath.Join(dir, sub, e.Name()), b, 0o600)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tmp, err := os.CreateTemp(dir, "team-*.toml")
		if err != nil {
			t.Fatal(err)
		}
		path := tmp.Name()
		defer os.Remove(path)
		tmp.Write(data)
		tmp.Close()
		start := time.Now()
		team, err := Load(path)
		if took := time.Since(start); took > loadBudget {
			t.Fatalf("Load of %d bytes took %s", len(data), took)
		}
		if err != nil {
			es, ok := AsErrors(err)
			if !ok || len(es) == 0 {
				t.Fatalf("error is not a non-empty Errors: %v", err)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range es {
				if e.Pos.File != path || e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
					t.Fatalf("error %q has a position outside the input (%d lines)", e, lines)
				}
			}
			return
		}
		checkTeam(t, team)
	})
}
