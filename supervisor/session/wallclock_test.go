//go:build !e2e

package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// wallClock are the calls that read the wall clock or make a timer on it.
var wallClock = map[string][]string{
	"time":    {"Now", "Since", "Until", "After", "AfterFunc", "Sleep", "NewTimer", "NewTicker", "Tick"},
	"context": {"WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause"},
}

// wallClockCalls lists the wall-clock calls in Go source (file:line name).
func wallClockCalls(fset *token.FileSet, f *ast.File) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		for _, name := range wallClock[pkg.Name] {
			if sel.Sel.Name == name {
				found = append(found, fset.Position(sel.Pos()).String()+" "+pkg.Name+"."+name)
			}
		}
		return true
	})
	return found
}

// Every time read and timer of the session goes through its clock: no
// wall-clock call is left in the package's code.
func TestSessionReadsOnlyItsClock(t *testing.T) {
	// The check itself finds what it looks for.
	fset := token.NewFileSet()
	probe, err := parser.ParseFile(fset, "probe.go", `package p
func f() { _ = time.Now(); time.Sleep(1); _, c := context.WithTimeout(nil, 1); c(); t := time.AfterFunc(1, nil); _ = t }`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := wallClockCalls(fset, probe); len(got) != 4 {
		t.Fatalf("the check finds %v in the probe, want 4 calls", got)
	}
	files, _ := filepath.Glob("*.go")
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, c := range wallClockCalls(fset, f) {
			t.Errorf("wall-clock call outside the session's clock: %s", c)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files: not the package's source", checked)
	}
}
