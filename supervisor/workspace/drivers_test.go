package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// markerScript writes a program that appends a line to marker when it runs
// and copies its input to its output (a working filter), and returns its
// path and marker's.
func markerScript(t *testing.T) (script, marker string) {
	t.Helper()
	dir := t.TempDir()
	marker = filepath.Join(dir, "ran")
	script = filepath.Join(dir, "driver.sh")
	write(t, script, "#!/bin/sh\necho \"ran: $*\" >> '"+marker+"'\nexec cat\n")
	os.Chmod(script, 0o755)
	return script, marker
}

// configureDrivers defines, in the user's global configuration and in the
// repository's, filter, merge and diff drivers that run the script: what a
// user with git-lfs (a filter.lfs.process driver) or a merge tool has.
func configureDrivers(t *testing.T, root, script string) {
	t.Helper()
	for _, scope := range []string{"--global", "--local"} {
		for _, kv := range [][2]string{
			{"filter.lfs.clean", script + " %f"}, {"filter.lfs.smudge", script + " %f"},
			{"filter.lfs.process", script}, {"filter.lfs.required", "true"},
			{"filter.My.Dotted.clean", script}, {"merge.mine.driver", script + " %O %A %B"},
			{"diff.mine.textconv", script}, {"diff.mine.command", script},
		} {
			gitT(t, root, "config", scope, kv[0], kv[1])
		}
	}
}

// driversOff turns off every driver the configuration defines, whatever its
// name's case or dots, and no other key.
func TestDriversOffNamesEveryConfiguredDriver(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	root := newRepo(t)
	script, _ := markerScript(t)
	configureDrivers(t, root, script)
	gitT(t, root, "config", "merge.ff", "only")
	g := driver(t)
	r := find(t, g, root)
	off, err := g.driversOff(context.Background(), r.site())
	if err != nil {
		t.Fatal(err)
	}
	want := "-c diff.mine.command= -c diff.mine.textconv= -c filter.My.Dotted.clean= -c filter.lfs.clean= " +
		"-c filter.lfs.process= -c filter.lfs.required=false -c filter.lfs.smudge= -c merge.mine.driver="
	if got := strings.Join(off, " "); got != want {
		t.Errorf("driversOff =\n%s\nwant\n%s", got, want)
	}
	gitT(t, root, "config", "filter.a=b.clean", script)
	if _, err := g.driversOff(context.Background(), r.site()); err == nil || !strings.Contains(err.Error(), `"a=b"`) {
		t.Errorf("a driver -c cannot name = %v", err)
	}
}

// A .gitattributes the agent writes can only name a driver; every driver
// the user's configuration defines is off for warden's git: no clean filter
// when its work is committed, no smudge filter when a dependent task's
// worktree is checked out from its branch, no merge driver when two such
// branches are merged — and the files are committed as the agent wrote them.
func TestAttributesCannotChooseAConfiguredDriver(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	root := newRepo(t)
	script, marker := markerScript(t)
	configureDrivers(t, root, script)
	g := driver(t)
	r := find(t, g, root)
	ctx := context.Background()

	w1 := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w1.Dir, "a.txt"), "T1's\n")
	agentDoes(t, w1.Dir, "plant=attributes", "driver=lfs")
	c1, made, err := w1.Commit(ctx, "T1: done (100%)", "")
	if err != nil || !made {
		t.Fatalf("Commit = %v %v", made, err)
	}
	noMarker(t, marker)
	if got := gitT(t, root, "show", c1+":a.txt"); got != "T1's" {
		t.Errorf("a.txt committed as %q", got)
	}

	w2 := prepare(t, r, wtPath(t, "T2"), "warden/t/T2", "main")
	write(t, filepath.Join(w2.Dir, ".gitattributes"), "* merge=mine diff=mine\n")
	write(t, filepath.Join(w2.Dir, "a.txt"), "T2's\n")
	commit(t, w2, "T2: done (100%)")
	write(t, filepath.Join(w1.Dir, ".gitattributes"), "* merge=mine diff=mine filter=lfs\n")
	commit(t, w1, "T1: done (100%)")

	w3 := prepare(t, r, wtPath(t, "T3"), "warden/t/T3", "warden/t/T1") // a checkout: smudge
	if got := read(t, filepath.Join(w3.Dir, "a.txt")); got != "T1's\n" {
		t.Errorf("checked out a.txt = %q", got)
	}
	_, err = r.Prepare(ctx, wtPath(t, "T4"), "warden/t/T4", []string{"warden/t/T1", "warden/t/T2"}) // a merge
	if err == nil {
		t.Error("the merge of a.txt through a driver with no command succeeded")
	}
	noMarker(t, marker)
}
