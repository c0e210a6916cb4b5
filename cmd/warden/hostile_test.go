package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// victim is a file and a directory outside the state dir that a planted
// symlink points at; untouched reports what changed about them.
type victim struct {
	file, dir string
	fileMod   time.Time
}

func newVictim(t *testing.T) *victim {
	t.Helper()
	base := t.TempDir()
	v := &victim{file: filepath.Join(base, "precious.txt"), dir: filepath.Join(base, "precious-dir")}
	if err := os.WriteFile(v.file, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(v.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(v.dir, 0o755)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(v.file, old, old)
	v.fileMod = old
	return v
}

func (v *victim) untouched(t *testing.T) {
	t.Helper()
	fi, err := os.Stat(v.file)
	if b, _ := os.ReadFile(v.file); err != nil || string(b) != "precious\n" || fi.Mode().Perm() != 0o644 || !fi.ModTime().Equal(v.fileMod) {
		t.Errorf("the file outside the state dir was touched: %q %v %v", b, fi.Mode(), err)
	}
	di, err := os.Stat(v.dir)
	ents, _ := os.ReadDir(v.dir)
	if err != nil || di.Mode().Perm() != 0o755 || len(ents) != 0 {
		t.Errorf("the directory outside the state dir was touched: mode %v, entries %v, %v", di.Mode(), ents, err)
	}
}

// Symlinks planted in a state dir are never followed: `warden run` refuses
// to start, exit 2, with an error naming the planted path, and nothing
// outside the state dir changes (content, mode, time, new entries).
func TestRunRefusesPlantedSymlinks(t *testing.T) {
	defer proctest.AssertNone(t)
	for _, c := range []struct{ rel, to string }{
		{"lock", "file"}, {"events.jsonl", "file"}, {"state.json", "file"}, {"STATUS.md", "file"},
		{"handoff.md", "file"}, {"hooks.sock", "file"},
		{"logs", "dir"}, {"logs/w1.log", "file"}, {"checkpoints", "dir"}, {"checkpoints/backups", "dir"},
		{"checkpoints/history", "dir"}, {"checkpoints/history/T1", "dir"}, {"checkpoints/w1-T1.json", "file"},
		{"handoffs", "dir"}, {"hooks", "dir"}, {"hooks/w1.spool.jsonl", "file"}, {"agents", "dir"},
		{"agents/w1", "dir"}, {"worktrees", "dir"},
	} {
		t.Run(strings.ReplaceAll(c.rel, "/", "_"), func(t *testing.T) {
			team := workerTeam(t, "worker:steps=1")
			st := filepath.Join(filepath.Dir(team), ".warden")
			v := newVictim(t)
			planted := filepath.Join(st, c.rel)
			if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(st, "state.json"), []byte("{}\n"), 0o600) // a warden state dir
			os.Remove(planted)
			target := v.file
			if c.to == "dir" {
				target = v.dir
			}
			if err := os.Symlink(target, planted); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := warden("run", team)
			cmd.Stderr = &stderr
			err := cmd.Run()
			if exitCode(err) != 2 || !strings.Contains(stderr.String(), planted) || !strings.Contains(stderr.String(), "symbolic link") {
				t.Errorf("warden run with a symlink at %s: exit %d, want 2 and an error naming it\n%s", c.rel, exitCode(err), stderr.String())
			}
			v.untouched(t)
			if fi, err := os.Lstat(planted); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link itself was changed: %v %v", fi, err)
			}
		})
	}
}

// A state dir that others may write to, that is a file, or that is "/" is
// refused by validate (at the key's position) and by run, and its mode is
// never changed.
func TestStateDirSharedOrSystemIsRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777|os.ModeSticky)
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, []byte("x"), 0o600)
	for _, c := range []struct{ dir, want string }{
		{"/", "/"}, {shared, "other users"}, {open, "other users"}, {file, "not a directory"},
	} {
		team := workerTeam(t, "worker:steps=1")
		body, _ := os.ReadFile(team)
		os.WriteFile(team, append([]byte("state_dir = \""+c.dir+"\"\n"), body...), 0o600)
		before, _ := os.Stat(c.dir)
		for _, verb := range []string{"validate", "run"} {
			out, err := warden(verb, team).CombinedOutput()
			if exitCode(err) != 2 || !strings.Contains(string(out), team+":1:1:") || !strings.Contains(string(out), c.want) {
				t.Errorf("%s with state_dir = %q: exit %d, want 2 and %s:1:1 saying %q\n%s", verb, c.dir, exitCode(err), team, c.want, out)
			}
		}
		if after, _ := os.Stat(c.dir); after.Mode() != before.Mode() {
			t.Errorf("the mode of %s changed from %v to %v", c.dir, before.Mode(), after.Mode())
		}
	}
}

// A FIFO planted at the lock or the event log never blocks warden.
func TestRunRefusesPlantedFIFOs(t *testing.T) {
	defer proctest.AssertNone(t)
	for _, rel := range []string{"lock", "events.jsonl"} {
		team := workerTeam(t, "worker:steps=1")
		st := filepath.Join(filepath.Dir(team), ".warden")
		os.Mkdir(st, 0o700)
		os.WriteFile(filepath.Join(st, "state.json"), []byte("{}\n"), 0o600)
		if err := syscall.Mkfifo(filepath.Join(st, rel), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := warden("run", team)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Start()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if exitCode(err) != 2 || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("a FIFO at %s: exit %d\n%s", rel, exitCode(err), stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("a FIFO at %s blocked warden\n%s", rel, stderr.String())
		}
	}
}
