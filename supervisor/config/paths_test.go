//go:build !e2e

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/safefile"
)

// loadErr loads a team file of body and returns its error text ("" when
// it is valid).
func loadErr(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "team.toml")
	write(t, p, body)
	_, err := Load(p)
	if err == nil {
		return ""
	}
	return err.Error()
}

// validate refuses a state_dir that run would refuse, at the key, and
// changes nothing on disk: "/", a shared (1777) or open (0777) directory, a
// file, another user's directory, a directory of other files.
func TestStateDirIsCheckedAtValidate(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		os.Mkdir(p, 0o700)
		os.Chmod(p, mode)
		return p
	}
	shared := mk("shared", 0o777|os.ModeSticky)
	open := mk("open", 0o777)
	busy := mk("busy", 0o755)
	write(t, filepath.Join(busy, "thesis.tex"), "mine")
	file := filepath.Join(base, "file")
	write(t, file, "x")
	mine := mk("mine", 0o755)
	write(t, filepath.Join(mine, "state.json"), "{}")
	link := filepath.Join(base, "link")
	os.Symlink(mine, link)
	agent := "\n[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	for _, c := range []struct{ dir, want string }{
		{"/", "state dir / "},
		{shared, "can be written by other users"},
		{open, "can be written by other users"},
		{busy, "holds other files and no warden state"},
		{file, "is not a directory"},
		{mine, ""},
		{link, ""},
		{filepath.Join(base, "new", ".warden"), ""},
	} {
		dir := t.TempDir()
		before, _ := os.Stat(c.dir)
		got := loadErr(t, dir, "name = \"t\"\nstate_dir = \""+c.dir+"\""+agent)
		if c.want == "" && got != "" || c.want != "" && (!strings.Contains(got, "team.toml:2:1: state dir ") || !strings.Contains(got, c.want)) {
			t.Errorf("state_dir = %q: %q, want %q at 2:1", c.dir, got, c.want)
		}
		if after, _ := os.Stat(c.dir); before != nil && after.Mode() != before.Mode() {
			t.Errorf("validate changed the mode of %s", c.dir)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "new")); err == nil {
		t.Error("validate created the state dir")
	}
	// Another user's directory (a uid this test cannot chown to: pretend).
	restore := safefile.PretendUID(os.Getuid() + 4242)
	got := loadErr(t, t.TempDir(), "state_dir = \""+mine+"\""+agent)
	restore()
	if !strings.Contains(got, "team.toml:1:1: state dir ") || !strings.Contains(got, "belongs to another user") {
		t.Errorf("another user's state dir: %q", got)
	}
}

// validate refuses an agent dir that does not exist or is a file, and a
// command given as a path that does not exist, is a directory or is not
// executable — relative to the agent's dir, as it is started — each at its
// key. A bare command name is left to PATH at start.
func TestAgentDirAndCommandAreChecked(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "work", "agent.sh"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "work", "agent.sh"), 0o755)
	write(t, filepath.Join(dir, "work", "notes.txt"), "x")
	body := `name = "t"
[[agent]]
name = "gone"
command = ["sh"]
dir = "nowhere"
[[agent]]
name = "file"
command = ["sh"]
dir = "work/notes.txt"
[[agent]]
name = "missing"
command = ["./missing.sh"]
dir = "work"
[[agent]]
name = "plain"
command = ["./notes.txt"]
dir = "work"
[[agent]]
name = "adir"
command = ["/"]
[[agent]]
name = "abs"
command = ["/nonexistent/bin/claude"]
[[agent]]
name = "good"
command = ["./agent.sh", "--flag"]
dir = "work"
[[agent]]
name = "good-abs"
command = ["` + filepath.Join(dir, "work", "agent.sh") + `"]
[[agent]]
name = "on-path"
command = ["no-such-command-on-path"]
`
	got := loadErr(t, dir, body)
	want := []string{
		"team.toml:5:1: dir " + filepath.Join(dir, "nowhere") + " does not exist",
		"team.toml:9:1: dir " + filepath.Join(dir, "work", "notes.txt") + " is not a directory",
		`team.toml:12:1: command "./missing.sh" does not exist (` + filepath.Join(dir, "work", "missing.sh") + ")",
		`team.toml:16:1: command "./notes.txt" is not executable (` + filepath.Join(dir, "work", "notes.txt") + ")",
		`team.toml:20:1: command "/" is a directory (/)`,
		`team.toml:23:1: command "/nonexistent/bin/claude" does not exist (/nonexistent/bin/claude)`,
	}
	lines := strings.Split(got, "\n")
	if len(lines) != len(want) {
		t.Fatalf("errors:\n%s\nwant %d of them", got, len(want))
	}
	for i, w := range want {
		if !strings.HasSuffix(filepath.Dir(strings.SplitN(lines[i], ":", 2)[0]), filepath.Base(dir)) || !strings.Contains(lines[i], w) {
			t.Errorf("error %d: %q, want %q", i, lines[i], w)
		}
	}
}

// A state dir on a scheduler's volume — group-writable and setgid, its
// files g+rw, as Kubernetes' fsGroup leaves them — validates when its
// group is one of this process's groups, and validate leaves it as it is;
// group-writable by a group the user is not in, it is refused at the key.
func TestStateDirOnASchedulersVolume(t *testing.T) {
	vol := filepath.Join(t.TempDir(), "state")
	os.Mkdir(vol, 0o700)
	write(t, filepath.Join(vol, "state.json"), "{}")
	os.Chmod(filepath.Join(vol, "state.json"), 0o660)
	os.Chown(vol, -1, os.Getegid())
	os.Chmod(vol, 0o770|os.ModeSetgid)
	body := "name = \"t\"\nstate_dir = \"" + vol + "\"\n[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	if got := loadErr(t, t.TempDir(), body); got != "" {
		t.Errorf("a 2770 state dir of our group %d: %s", os.Getegid(), got)
	}
	if fi, _ := os.Stat(vol); fi.Mode().Perm() != 0o770 || fi.Mode()&os.ModeSetgid == 0 {
		t.Errorf("validate changed its mode to %v", fi.Mode())
	}

	// A group this process is not in: as root, really chgrp'd to a free
	// gid; as another user (who may chgrp only to their own groups), the
	// process's groups are pretended without the directory's.
	gid := os.Getegid()
	if os.Geteuid() == 0 {
		gid = 4242
		for groupOfMine(gid) {
			gid++
		}
		if err := os.Chown(vol, -1, gid); err != nil {
			t.Fatal(err)
		}
	} else {
		defer safefile.PretendGroups([]int{gid + 4242})()
	}
	got := loadErr(t, t.TempDir(), body)
	want := fmt.Sprintf("group %d may write to it and is not one of your groups", gid)
	if !strings.Contains(got, "team.toml:2:1: state dir "+vol+" can be written by other users") || !strings.Contains(got, want) {
		t.Errorf("a 2770 state dir of a group not ours: %q, want %q at 2:1", got, want)
	}
}

func groupOfMine(gid int) bool {
	gs, _ := os.Getgroups()
	return gid == os.Getegid() || gid == os.Getgid() || slices.Contains(gs, gid)
}
