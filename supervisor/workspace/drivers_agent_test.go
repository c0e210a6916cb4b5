//go:build e2e

package workspace

import (
	"context"
	"path/filepath"
	"testing"
)

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
