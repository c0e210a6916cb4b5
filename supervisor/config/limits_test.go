//go:build !e2e

package config

import (
	"strings"
	"testing"
	"time"
)

// A team file of 40,000 nested arrays, one over 1 MB, and timers of 1ns are
// refused at once, with a position — never decoded for seconds and
// gigabytes.
func TestLimits(t *testing.T) {
	deep := "name = \"t\"\nx = " + strings.Repeat("[", 40000) + strings.Repeat("]", 40000) + "\n"
	start := time.Now()
	if _, err := Parse("t.toml", []byte(deep)); err == nil || !strings.Contains(err.Error(), "t.toml:2:") ||
		!strings.Contains(err.Error(), "nested more than 32 deep") {
		t.Errorf("deep: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("refusing the deep file took %s", took)
	}
	big := "name = \"t\"\n# " + strings.Repeat("x", MaxFileSize) + "\n"
	if _, err := Parse("t.toml", []byte(big)); err == nil || !strings.Contains(err.Error(), "at most 1048576") {
		t.Errorf("big: %v", err)
	}
	// Brackets inside strings and comments do not count.
	ok := "name = \"t\" # [[[[\nx = \"" + strings.Repeat("[", 100) + "\"\ny = '''\n" + strings.Repeat("{", 100) + "'''\n" +
		"[[agent]]\nname = \"a\"\ncommand = [\"true\"]\n"
	if _, err := Parse("t.toml", []byte(ok)); err != nil && strings.Contains(err.Error(), "nested") {
		t.Errorf("brackets in strings counted: %v", err)
	}
	short := "name = \"t\"\nstale_warning = \"1ns\"\n[[agent]]\nname = \"a\"\ncommand = [\"true\"]\n"
	if _, err := Parse("t.toml", []byte(short)); err == nil || !strings.Contains(err.Error(), "t.toml:2:1: stale_warning must be at least 50ms") {
		t.Errorf("1ns: %v", err)
	}
}
