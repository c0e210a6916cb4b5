//go:build !e2e

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const idleAgent = "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"

func loadIdle(t *testing.T, src string) (*Team, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.toml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

// idle_after and idle_nudges: their defaults, a default that follows a long
// checkpoint_interval, "0s", and what is refused at its file:line:col.
func TestIdleKeys(t *testing.T) {
	for _, c := range []struct {
		name, src string
		after     time.Duration
		nudges    int
		err       string
	}{
		{"defaults", idleAgent, 20 * time.Minute, 2, ""},
		{"set", "idle_after = \"45m\"\nidle_nudges = 0\n" + idleAgent, 45 * time.Minute, 0, ""},
		{"off", "idle_after = \"0s\"\n" + idleAgent, 0, 2, ""},
		{"default follows a long interval", "checkpoint_interval = \"30m\"\nstale_warning = \"1h\"\nstale_failure = \"2h\"\n" + idleAgent,
			time.Hour, 2, ""},
		{"not above the interval", "checkpoint_interval = \"10m\"\nidle_after = \"10m\"\n" + idleAgent, 0, 0,
			"t.toml:2:1: idle_after (10m0s) must be longer than checkpoint_interval (10m0s)"},
		{"negative nudges", "idle_nudges = -1\n" + idleAgent, 0, 0,
			"t.toml:1:1: idle_nudges must be between 0 and 100, not -1"},
		{"not a duration", "idle_after = 20\n" + idleAgent, 0, 0,
			"t.toml:1:1: idle_after must be a duration string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			team, err := loadIdle(t, c.src)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if team.IdleAfter != c.after || team.IdleNudges != c.nudges {
				t.Errorf("idle_after %v, idle_nudges %d; want %v, %d", team.IdleAfter, team.IdleNudges, c.after, c.nudges)
			}
		})
	}
}
