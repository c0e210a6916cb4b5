//go:build !e2e

package tokenfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reader reads each byte once: a call after an append reads exactly
// the appended bytes, a call after none reads nothing, and a line written
// in two parts is taken once it ends.
func TestTailReadsOnlyAppendedBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	c := NewClaude(p)
	if rep := mustRead(t, c); rep.BytesRead != 0 || rep.Tokens != (Tokens{}) {
		t.Fatalf("before the file exists: %+v", rep)
	}
	n := appendFile(t, p, claudeUser(50_000)+claudeAssistant("m1", "r1", "claude-opus-5-5", 100, 10, 1000, 20, "text"))
	rep := mustRead(t, c)
	if rep.BytesRead != n || rep.Tokens != (Tokens{Input: 1110, CachedInput: 1000, CacheWrite: 10, Output: 20}) {
		t.Fatalf("first read: %+v (wrote %d)", rep, n)
	}
	if again := mustRead(t, c); again.BytesRead != n {
		t.Errorf("a read with nothing appended read %d more bytes", again.BytesRead-n)
	}
	line := claudeAssistant("m2", "r2", "claude-opus-5-5", 200, 0, 0, 30, "text")
	half := len(line) / 2
	n += appendFile(t, p, line[:half])
	if rep := mustRead(t, c); rep.BytesRead != n || rep.Tokens.Output != 20 {
		t.Errorf("half a line: read %d of %d, output %d (the half line must wait)", rep.BytesRead, n, rep.Tokens.Output)
	}
	n += appendFile(t, p, line[half:])
	if rep := mustRead(t, c); rep.BytesRead != n || rep.Tokens.Output != 50 || rep.Tokens.Input != 1310 {
		t.Errorf("the line ended: %+v (wrote %d)", rep, n)
	}
}

// A file truncated or replaced (another inode) is read again from its
// start, forgetting what was counted from it.
func TestTailStartsOverOnTruncationAndReplacement(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rollout.jsonl")
	c := NewCodex(p)
	appendFile(t, p, codexTokenCount(1000, 500, 10)+codexTokenCount(3000, 1500, 30))
	if rep := mustRead(t, c); rep.Tokens != (Tokens{Input: 3000, CachedInput: 1500, Output: 30}) {
		t.Fatalf("first read: %+v", rep)
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	n := appendFile(t, p, codexTokenCount(200, 0, 2))
	rep := mustRead(t, c)
	if rep.Tokens != (Tokens{Input: 200, Output: 2}) {
		t.Errorf("after truncation: %+v", rep)
	}
	// Replaced by another file of the same or greater size: a new inode.
	other := filepath.Join(dir, "new.jsonl")
	appendFile(t, other, strings.Repeat(" ", int(n))+"\n"+codexTokenCount(70, 7, 7))
	if err := os.Rename(other, p); err != nil {
		t.Fatal(err)
	}
	if rep := mustRead(t, c); rep.Tokens != (Tokens{Input: 70, CachedInput: 7, Output: 7}) {
		t.Errorf("after replacement: %+v", rep)
	}
}
