//go:build !e2e

package config

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
)

// TestDefaultsAreWhatLoadFills: a team file that sets nothing but one agent
// decodes to Defaults() with its paths resolved, and its agent to
// AgentDefaults(); a [[notify]] with only events and command to NotifyDefaults().
func TestDefaultsAreWhatLoadFills(t *testing.T) {
	dir := t.TempDir()
	src := "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n[[notify]]\nevents = \"*\"\ncommand = [\"true\"]\n"
	team, err := Parse(filepath.Join(dir, "t.toml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := Defaults()
	want.Path = filepath.Join(dir, "t.toml")
	want.Name = "t"
	want.StateDir = filepath.Join(dir, want.StateDir)
	want.SignalFile = filepath.Join(dir, want.SignalFile)
	agent := AgentDefaults()
	agent.Name, agent.Command, agent.Dir = "a", []string{"sh"}, dir
	agent.Pos = Position{File: filepath.Join(dir, "t.toml"), Line: 1, Col: 1}
	want.Agents = []Agent{agent}
	rule := NotifyDefaults()
	rule.Events, rule.Command = []string{"*"}, []string{"true"}
	rule.Pos = Position{File: filepath.Join(dir, "t.toml"), Line: 4, Col: 1}
	want.Notify = []Notify{rule}
	if !reflect.DeepEqual(*team, want) {
		t.Errorf("team:\n%+v\nwant:\n%+v", *team, want)
	}
	if rule.Timeout != 30*time.Second || rule.MinInterval != 10*time.Minute {
		t.Errorf("NotifyDefaults() = %+v, want timeout 30s, min_interval 10m", rule)
	}
	if want.LogMaxSize != 50_000_000 || want.LogKeep != 5 || want.OnDialog != "wait" ||
		want.DialogTimeout != 15*time.Minute || want.MaxRuntime != 0 || want.StopAt != "" {
		t.Errorf("Defaults() = %+v", want)
	}
}

func TestDialogPolicy(t *testing.T) {
	team, err := Load("testdata/valid-full.toml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	w1, _ := team.Agent("worker-1")       // on_dialog = "wait", dialog_timeout = "1h"
	w2, _ := team.Agent("worker_2.codex") // the team's: "deny", "5m"
	var byHand Team                       // built without Defaults
	cases := []struct {
		name string
		got  DialogPolicy
		want DialogPolicy
	}{
		{"agent override", team.Dialog(w1), DialogPolicy{On: "wait", Timeout: time.Hour}},
		{"team's", team.Dialog(w2), DialogPolicy{On: "deny", Timeout: 5 * time.Minute}},
		{"team's, no agent", team.Dialog(nil), DialogPolicy{On: "deny", Timeout: 5 * time.Minute}},
		{"zero team", byHand.Dialog(&Agent{}), DialogPolicy{On: "wait", Timeout: 15 * time.Minute}},
		{"zero team, agent's timeout", byHand.Dialog(&Agent{DialogTimeout: time.Second}), DialogPolicy{On: "wait", Timeout: time.Second}},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: Dialog = %+v, want %+v", c.name, c.got, c.want)
		}
	}
}

func TestNextStop(t *testing.T) {
	zone := time.FixedZone("X", 2*3600)
	at := func(mo time.Month, d, h, m int) time.Time { return time.Date(2026, mo, d, h, m, 0, 0, zone) }
	cases := []struct {
		stopAt string
		now    time.Time
		want   time.Time
	}{
		{"07:00", at(5, 3, 22, 15), at(5, 4, 7, 0)},                    // tonight → tomorrow morning
		{"07:00", at(5, 3, 6, 59), at(5, 3, 7, 0)},                     // later today
		{"07:00", at(5, 3, 7, 0), at(5, 3, 7, 0)},                      // now
		{"00:00", at(12, 31, 23, 30), at(1, 1, 0, 0).AddDate(1, 0, 0)}, // year end
		{"23:59", at(2, 28, 23, 59).Add(time.Second), at(3, 1, 23, 59)},
	}
	for _, c := range cases {
		team := Team{StopAt: c.stopAt}
		got, ok := team.NextStop(c.now)
		if !ok || !got.Equal(c.want) || got.Location() != zone {
			t.Errorf("NextStop(%s) at %s = %s, %v; want %s", c.stopAt, c.now, got, ok, c.want)
		}
	}
	for _, none := range []string{"", "7:00", "24:00"} {
		if got, ok := (&Team{StopAt: none}).NextStop(at(1, 1, 0, 0)); ok {
			t.Errorf("NextStop(%q) = %s, true; want none", none, got)
		}
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"50MB": 50_000_000, "512KB": 512_000, "1GiB": 1 << 30, "1MiB": 1 << 20, "2 gb": 2_000_000_000,
		"100B": 100, " 7KiB ": 7 << 10, "0MB": 0,
	}
	for s, want := range good {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "MB", "50", "50 M", "1.5GB", "-1MB", "50MBs", "1TB", "9223372036854775807KB"} {
		if got, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, got)
		}
	}
}

// TestEventNames: the names a [[notify]] may list are DESIGN §5's and those
// the issue adds, no more.
func TestEventNames(t *testing.T) {
	// The events a [[notify]] table may name are the ones warden writes,
	// as package event lists them, sorted; and those DESIGN §5 names.
	got := EventNames()
	if !slices.IsSorted(got) || len(got) != len(event.Names) {
		t.Errorf("EventNames() = %q", got)
	}
	for _, n := range []string{"agent_waiting", "agent_resumed", "dialog_denied", "team_done", "usage_limit_wait"} {
		if !slices.Contains(got, n) {
			t.Errorf("EventNames() lacks %s", n)
		}
	}
	if KnownEvent("*") || KnownEvent("agent_wait") || !KnownEvent("team_done") {
		t.Errorf("KnownEvent disagrees with EventNames")
	}
	rule := Notify{Events: []string{"team_done", "agent_waiting"}}
	all := Notify{Events: []string{NotifyAll}}
	if !rule.Matches("agent_waiting") || rule.Matches("agent_started") || !all.Matches("agent_started") {
		t.Errorf("Matches: rule %v, all %v", rule.Events, all.Events)
	}
}
