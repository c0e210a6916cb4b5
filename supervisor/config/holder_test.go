//go:build !e2e

package config

import (
	"strings"
	"testing"
	"time"
)

// holder and orphan_timeout: off and 10m by default, strict like every key.
func TestHolderKeys(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	team, err := Parse("t.toml", []byte("holder = true\norphan_timeout = \"30s\"\n"+agent))
	if err != nil {
		t.Fatal(err)
	}
	if !team.Holder || team.OrphanTimeout != 30*time.Second {
		t.Errorf("holder %v, orphan_timeout %s", team.Holder, team.OrphanTimeout)
	}
	def, err := Parse("t.toml", []byte(agent))
	if err != nil {
		t.Fatal(err)
	}
	if def.Holder || def.OrphanTimeout != 10*time.Minute {
		t.Errorf("defaults: holder %v, orphan_timeout %s; want false, 10m", def.Holder, def.OrphanTimeout)
	}
	for src, want := range map[string]string{
		"holder = \"yes\"\n":        "t.toml:1:1: holder",
		"orphan_timeout = \"0s\"\n": "t.toml:1:1: orphan_timeout must be positive",
	} {
		_, err := Parse("t.toml", []byte(src+agent))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
