//go:build !e2e

package main

import (
	"runtime/debug"
	"testing"
)

// warden collects at 50 % heap growth unless GOGC says otherwise.
func TestGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		env  string
		want int
	}{{"", gcPercent}, {"200", 100}, {"off", 100}} {
		t.Setenv("GOGC", c.env)
		debug.SetGCPercent(100)
		tuneGC()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: GC percent %d, want %d", c.env, got, c.want)
		}
	}
}
