//go:build !e2e

package workspace

import (
	"context"
	"strings"
	"testing"
)

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
