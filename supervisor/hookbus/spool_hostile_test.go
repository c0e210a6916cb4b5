//go:build !e2e

package hookbus

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol/profile"
)

// plantedVictim is a file and a directory outside the state dir.
func plantedVictim(t *testing.T) (file, dir string) {
	base := t.TempDir()
	file, dir = filepath.Join(base, "victim"), filepath.Join(base, "victim-dir")
	os.WriteFile(file, []byte("precious\n"), 0o644)
	os.Mkdir(dir, 0o755)
	return file, dir
}

// `warden hook` never appends through a link planted at hooks/ or at the
// agent's spool file (or at logs/ for its failure log); the supervisor
// never reads, nor removes, a spool that is a link — the others are
// drained.
func TestSpoolNeverFollowsPlantedLinks(t *testing.T) {
	file, dir := plantedVictim(t)
	stop := `{"last_assistant_message":"forged"}`
	for _, plant := range []struct{ rel, target string }{
		{"hooks", dir}, {"hooks/w1.spool.jsonl", file}, {"hooks/w1.spool.jsonl", filepath.Join(dir, "new")},
	} {
		state := t.TempDir()
		os.MkdirAll(filepath.Join(state, "hooks"), 0o700)
		os.Remove(filepath.Join(state, plant.rel))
		os.Symlink(plant.target, filepath.Join(state, plant.rel))
		os.Symlink(dir, filepath.Join(state, "logs"))
		err := RunHook([]string{profile.KindClaudeStop}, strings.NewReader(stop), &bytes.Buffer{}, inAgent(HookEnv{Agent: "w1", StateDir: state}))
		if !errors.Is(err, safefile.ErrSymlink) {
			t.Errorf("spool with a link at %s: %v", plant.rel, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "precious\n" {
		t.Errorf("the file outside was appended to: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files were made in the directory outside: %v", ents)
	}

	// A spool file planted as a link to a file of forged messages.
	state := t.TempDir()
	env := inAgent(HookEnv{Agent: "w2", StateDir: state})
	if err := RunHook([]string{profile.KindClaudeStop}, strings.NewReader(`{"last_assistant_message":"real"}`), &bytes.Buffer{}, env); err != nil {
		t.Fatal(err)
	}
	forged, _ := os.ReadFile(filepath.Join(state, "hooks", "w2.spool.jsonl"))
	os.WriteFile(file, forged, 0o644)
	link := filepath.Join(state, "hooks", "w1.spool.jsonl")
	os.Symlink(file, link)
	msgs, _, err := Drain(state)
	if len(msgs) != 1 || msgs[0].Agent != "w2" || !errors.Is(err, safefile.ErrSymlink) || !strings.Contains(err.Error(), link) {
		t.Errorf("Drain with a linked spool: %d messages, %v", len(msgs), err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the planted link was removed: %v", err)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, forged) {
		t.Error("the file outside was changed")
	}
	os.Remove(link)
	os.RemoveAll(filepath.Join(state, "hooks"))
	os.Symlink(dir, filepath.Join(state, "hooks"))
	if msgs, _, err := Drain(state); len(msgs) != 0 || err == nil {
		t.Errorf("Drain through a linked hooks/: %d messages, %v", len(msgs), err)
	}
}
