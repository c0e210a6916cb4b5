package main

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The preamble every command shares: flags before or after the positional
// arguments, a bad flag or -h exit 2 with the flag set's words on stderr,
// --state-dir for a command that finds a team, and its usage line for a
// bad command line.
func TestCommandPreamble(t *testing.T) {
	var stderr bytes.Buffer
	cmd := newTeamCommand("x", "usage: warden x [TEAM.toml | --state-dir DIR] AGENT [--json]", &stderr)
	asJSON := cmd.Bool("json", false, "print JSON")
	dir, rest, err := cmd.team([]string{"--json", "w", "--state-dir", "/s", "more"})
	if err != nil || dir != "/s" || !reflect.DeepEqual(rest, []string{"w", "more"}) || !*asJSON {
		t.Errorf("team: %q %q %v, json %v", dir, rest, err, *asJSON)
	}

	for _, args := range [][]string{{"-h"}, {"w", "--bogus"}} {
		stderr.Reset()
		cmd := newTeamCommand("x", "usage: warden x", &stderr)
		var ee *exitError
		if _, err := cmd.args(args); !errors.As(err, &ee) || ee.code != 2 || ee.err != nil || !strings.Contains(stderr.String(), "Usage of x:") ||
			!strings.Contains(stderr.String(), "-state-dir") {
			t.Errorf("%q: %v, stderr %q", args, err, stderr.String())
		}
	}

	cmd = newTeamCommand("x", "usage: warden x [TEAM.toml | --state-dir DIR]", &stderr)
	var ee *exitError
	if _, err := cmd.teamDir([]string{"--state-dir", "/s", "extra"}); !errors.As(err, &ee) || ee.code != 2 || ee.err.Error() != cmd.usage {
		t.Errorf("teamDir with a word too many: %v", err)
	}

	plain := newCommand("y", "usage: warden y -- CMD", &stderr)
	if pos, err := plain.flagsFirst([]string{"cmd", "--flag-of-cmd"}); err != nil || !reflect.DeepEqual(pos, []string{"cmd", "--flag-of-cmd"}) {
		t.Errorf("flagsFirst: %q %v", pos, err)
	}
}
