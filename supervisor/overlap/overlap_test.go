//go:build !e2e

package overlap

import (
	"slices"
	"testing"
)

// TestOverlapSaidOncePerPathSet: two tasks whose latest records name a
// common path overlap once; the same paths again say nothing; a new common
// path says it again, naming every common path and the new one; the task
// that named the path second is the later one.
func TestOverlapSaidOncePerPathSet(t *testing.T) {
	d := New()
	if o := d.Record("T1", "a", []string{"a.go", "b.go"}); len(o) != 0 {
		t.Fatalf("one task alone: %v", o)
	}
	if o := d.Record("T2", "b", []string{"c.go"}); len(o) != 0 {
		t.Fatalf("no common path: %v", o)
	}
	o := d.Record("T2", "b", []string{"c.go", "a.go"})
	if len(o) != 1 {
		t.Fatalf("a common path: %d overlaps, want 1", len(o))
	}
	want := Overlap{First: Party{"T1", "a"}, Later: Party{"T2", "b"}, Paths: []string{"a.go"}, New: []string{"a.go"}}
	if !same(o[0], want) {
		t.Errorf("got %+v, want %+v", o[0], want)
	}
	if o := d.Record("T1", "a", []string{"a.go", "b.go"}); len(o) != 0 {
		t.Errorf("the same path set again: %v", o)
	}
	if o := d.Record("T2", "b", []string{"a.go", "c.go"}); len(o) != 0 {
		t.Errorf("the same path set again: %v", o)
	}
	o = d.Record("T2", "b", []string{"a.go", "b.go"})
	want = Overlap{First: Party{"T1", "a"}, Later: Party{"T2", "b"}, Paths: []string{"a.go", "b.go"}, New: []string{"b.go"}}
	if len(o) != 1 || !same(o[0], want) {
		t.Errorf("a new common path: %+v, want %+v", o, want)
	}
}

// TestOverlapLaterIsWhoNamedItSecond: T1's newer record naming a path T2
// named first makes T1 the later task.
func TestOverlapLaterIsWhoNamedItSecond(t *testing.T) {
	d := New()
	d.Record("T1", "a", []string{"x.go"})
	d.Record("T2", "b", []string{"y.go"})
	o := d.Record("T1", "a", []string{"x.go", "y.go"})
	if len(o) != 1 || o[0].First.Task != "T2" || o[0].Later.Task != "T1" {
		t.Fatalf("got %+v, want T2 first, T1 later", o)
	}
}

// TestOverlapEndForgetsTheTask: a task that ended meets nobody; three
// tasks on one path give one overlap per pair.
func TestOverlapEndForgetsTheTask(t *testing.T) {
	d := New()
	d.Record("T1", "a", []string{"x.go"})
	d.Record("T2", "b", []string{"x.go"})
	if o := d.Record("T3", "c", []string{"x.go"}); len(o) != 2 || o[0].First.Task != "T1" || o[1].First.Task != "T2" {
		t.Fatalf("three tasks on one path: %+v", o)
	}
	d.End("T1")
	if o := d.Record("T3", "c", []string{"x.go"}); len(o) != 0 {
		t.Errorf("said again after T1 ended: %+v", o)
	}
	if got := d.Tasks(); !slices.Equal(got, []string{"T2", "T3"}) {
		t.Errorf("tasks %v", got)
	}
	if o := d.Record("T1", "a", []string{"x.go"}); len(o) != 2 {
		t.Errorf("T1 again (reopened): %d overlaps, want 2", len(o))
	}
}

// TestCleanComparesRepositoryPaths: paths are cleaned relative to the
// task's dir and named relative to its root, so that two worktrees of one
// repository (and a subdir's ./x/../y) name the same file alike; the words
// for none are dropped.
func TestCleanComparesRepositoryPaths(t *testing.T) {
	got := Clean([]string{"./pkg/../a.go", "none", " `b.go` ", "/wt/T1/c.go", "/elsewhere/d.go", "", "a.go"}, "/wt/T1/sub", "/wt/T1")
	want := []string{"sub/a.go", "sub/b.go", "c.go", "/elsewhere/d.go"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	one := Clean([]string{"sub/a.go"}, "/wt/T1", "/wt/T1")
	two := Clean([]string{"a.go"}, "/wt/T2/sub", "/wt/T2")
	if !slices.Equal(one, two) {
		t.Errorf("two worktrees' paths: %q and %q", one, two)
	}
}

func same(a, b Overlap) bool {
	return a.First == b.First && a.Later == b.Later && slices.Equal(a.Paths, b.Paths) && slices.Equal(a.New, b.New)
}
