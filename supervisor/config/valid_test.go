//go:build !e2e

package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestLoadMinimalFillsDefaults(t *testing.T) {
	team, err := Load("testdata/valid-minimal.toml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir := mustAbs(t, "testdata")
	want := &Team{
		Path:                filepath.Join(dir, "valid-minimal.toml"),
		Name:                "valid-minimal",
		StateDir:            filepath.Join(dir, ".warden"),
		CheckpointInterval:  5 * time.Minute,
		CheckpointTimeout:   30 * time.Second,
		ShutdownTimeout:     30 * time.Second,
		StaleWarning:        10 * time.Minute,
		StaleFailure:        30 * time.Minute,
		IdleAfter:           20 * time.Minute,
		IdleNudges:          2,
		SignalFile:          filepath.Join(dir, ".warden", "checkpoint-needed"),
		ContextThreshold:    80,
		UsageLimitWait:      time.Hour,
		AfterTeamCheckpoint: "rehydrate",
		OnDialog:            "wait",
		DialogTimeout:       15 * time.Minute,
		OnLimit:             "wait",
		LogMaxSize:          50_000_000,
		LogKeep:             5,
		Retention:           RetentionDefaults(),
		WorkspaceMode:       WorkspaceShared,
		Merge:               MergeNone,
		OnOverlap:           OverlapWarn,
		Review:              Review{MaxReviewRounds: DefaultMaxReviewRounds},
		Landing:             Landing{Land: LandNone, LandVerifyTimeout: DefaultLandVerifyTimeout, LandAttempts: DefaultLandAttempts},
		Sandbox:             SandboxBox,
		OrphanTimeout:       DefaultOrphanTimeout,
		TeamBudget:          TeamBudget{CostWarning: 80, OnBudget: "checkpoint-exit"},
		Agents: []Agent{{
			Name:        "solo",
			Command:     []string{"claude"},
			Profile:     "plain",
			Dir:         dir,
			Restart:     "on-failure",
			MaxRestarts: 5,
			Pos:         Position{File: "testdata/valid-minimal.toml", Line: 2, Col: 1},
		}},
	}
	if !reflect.DeepEqual(team, want) {
		t.Errorf("team:\n%+v\nwant:\n%+v", team, want)
	}
}

func TestLoadFullKeepsEveryValue(t *testing.T) {
	team, err := Load("testdata/valid-full.toml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir := mustAbs(t, "testdata")
	file := "testdata/valid-full.toml"
	want := &Team{
		Path:                filepath.Join(dir, "valid-full.toml"),
		Name:                "nightly",
		StateDir:            filepath.Join(dir, "state"),
		CheckpointInterval:  2 * time.Minute,
		CheckpointTimeout:   45 * time.Second,
		ShutdownTimeout:     time.Minute,
		StaleWarning:        5 * time.Minute,
		StaleFailure:        20 * time.Minute,
		IdleAfter:           20 * time.Minute,
		IdleNudges:          2,
		SignalFile:          filepath.Join(dir, "state", "signals", "now"),
		ContextThreshold:    90,
		UsageLimitWait:      90 * time.Minute,
		AfterTeamCheckpoint: "exit",
		OnDialog:            "deny",
		DialogTimeout:       5 * time.Minute,
		OnLimit:             "wait",
		MaxRuntime:          8 * time.Hour,
		StopAt:              "07:00",
		LogMaxSize:          1 << 30,
		LogKeep:             3,
		Retention:           Retention{KeepStatusChanges: false, KeepTeamCheckpoints: true, KeepLast: 50, KeepFor: 72 * time.Hour},
		WorkspaceMode:       WorkspaceShared,
		Merge:               MergeFF,
		OnOverlap:           OverlapSerialize,
		Review:              Review{MaxReviewRounds: DefaultMaxReviewRounds},
		Landing:             Landing{Land: LandNone, LandVerifyTimeout: DefaultLandVerifyTimeout, LandAttempts: DefaultLandAttempts},
		Sandbox:             SandboxOff,
		OrphanTimeout:       DefaultOrphanTimeout,
		Base:                "develop",
		TeamBudget:          TeamBudget{CostWarning: 80, OnBudget: "checkpoint-exit"},
		Notify: []Notify{{
			Events:      []string{"agent_waiting", "agent_stalled", "agent_failed", "task_failed", "usage_limit_wait", "team_done"},
			Command:     []string{"notify-send", "warden"},
			Timeout:     30 * time.Second,
			MinInterval: 5 * time.Minute,
			Pos:         Position{File: file, Line: 24, Col: 1},
		}, {
			Events:      []string{"*"},
			Command:     []string{"curl", "-sS", "--data-binary", "@-", "http://127.0.0.1:9/hook"},
			Timeout:     10 * time.Second,
			MinInterval: 0,
			Pos:         Position{File: file, Line: 29, Col: 1},
		}},
		Agents: []Agent{{
			Name:          "worker-1",
			Command:       []string{"claude", "--dangerously-skip-permissions"},
			Profile:       "claude",
			Dir:           filepath.Join(dir, "work"),
			Env:           map[string]string{"ANTHROPIC_MODEL": "opus", "QUOTED.NAME": "q"},
			Restart:       "always",
			MaxRestarts:   0,
			OnDialog:      "wait",
			DialogTimeout: time.Hour,
			Pos:           Position{File: file, Line: 35, Col: 1},
		}, {
			Name:        "worker_2.codex",
			Command:     []string{"codex"},
			Profile:     "codex",
			Dir:         "/tmp",
			Restart:     "never",
			MaxRestarts: 5,
			Prompt:      "Review the repository.\n",
			Pos:         Position{File: file, Line: 49, Col: 1},
		}},
		Tasks: []Task{{
			ID:     "T059",
			Title:  "Collect the PDFs",
			Prompt: "Find every PDF under docs/.",
			Pos:    Position{File: file, Line: 59, Col: 1},
		}, {
			ID:          "T060",
			Title:       "Convert Nature Trail PDFs to Markdown",
			Prompt:      "Do task one.\n",
			PromptFile:  filepath.Join(dir, "prompts", "T1.md"),
			BlockedBy:   []string{"T059"},
			Agent:       "worker-1",
			Verify:      []string{"go", "test", "./..."},
			MaxAttempts: 5,
			MaxTime:     3 * time.Hour,
			Estimate:    90 * time.Minute,
			Pos:         Position{File: file, Line: 64, Col: 1},
		}},
	}
	if !reflect.DeepEqual(team, want) {
		t.Errorf("team:\n%+v\nwant:\n%+v", team, want)
	}
	if a, ok := team.Agent("worker_2.codex"); !ok || a.Profile != "codex" {
		t.Errorf("Agent(worker_2.codex) = %+v, %v", a, ok)
	}
	if tk, ok := team.Task("T060"); !ok || tk.Agent != "worker-1" {
		t.Errorf("Task(T060) = %+v, %v", tk, ok)
	}
	if _, ok := team.Task("T999"); ok {
		t.Errorf("Task(T999) found a task")
	}
}

func TestLoadInlineTables(t *testing.T) {
	team, err := Load("testdata/valid-inline.toml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(team.Agents) != 2 || team.Agents[1].Env["X"] != "1" || len(team.Tasks) != 1 {
		t.Fatalf("team = %+v", team)
	}
	if got := team.Agents[1].Pos.String(); got != "testdata/valid-inline.toml:4:3" {
		t.Errorf("second agent at %s, want testdata/valid-inline.toml:4:3", got)
	}
}

// TestRelativePaths writes a team file into a directory of its own and loads
// it from another working directory: dir, state_dir and prompt_file are
// relative to the team file, absolute ones stay as they are.
func TestRelativePaths(t *testing.T) {
	root := t.TempDir()
	teamDir := filepath.Join(root, "teams", "night")
	write(t, filepath.Join(teamDir, "tasks", "T1.md"), "Prompt from a file.")
	write(t, filepath.Join(root, "shared.md"), "Shared prompt.")
	os.Mkdir(filepath.Join(root, "repo"), 0o700)
	write(t, filepath.Join(teamDir, "team.toml"), `
state_dir = "../state"
[[agent]]
name = "a"
command = ["sh"]
dir = "../../repo"
[[agent]]
name = "b"
command = ["sh"]
dir = "`+root+`"
[[task]]
id = "T1"
prompt_file = "tasks/T1.md"
[[task]]
id = "T2"
prompt_file = "../../shared.md"
`)
	t.Chdir(root)
	team, err := Load("teams/night/team.toml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	checks := map[string][2]string{
		"Path":           {team.Path, filepath.Join(teamDir, "team.toml")},
		"StateDir":       {team.StateDir, filepath.Join(root, "teams", "state")},
		"SignalFile":     {team.SignalFile, filepath.Join(root, "teams", "state", "checkpoint-needed")},
		"agent a Dir":    {team.Agents[0].Dir, filepath.Join(root, "repo")},
		"agent b Dir":    {team.Agents[1].Dir, root},
		"T1 PromptFile":  {team.Tasks[0].PromptFile, filepath.Join(teamDir, "tasks", "T1.md")},
		"T1 Prompt":      {team.Tasks[0].Prompt, "Prompt from a file."},
		"T2 Prompt":      {team.Tasks[1].Prompt, "Shared prompt."},
		"Name":           {team.Name, "team"},
		"agent a Pos":    {team.Agents[0].Pos.String(), "teams/night/team.toml:3:1"},
		"T2 Pos":         {team.Tasks[1].Pos.String(), "teams/night/team.toml:14:1"},
		"agent b Prompt": {team.Agents[1].Prompt, ""},
	}
	for what, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", what, c[0], c[1])
		}
	}
}

// TestPromptFileNotRegular: a FIFO or an oversized file is refused without
// blocking on it or reading it all.
func TestPromptFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	write(t, filepath.Join(dir, "big.md"), strings.Repeat("x", maxPromptFile+1))
	src := "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n" +
		"[[task]]\nid = \"T1\"\nprompt_file = \"fifo\"\n" +
		"[[task]]\nid = \"T2\"\nprompt_file = \"big.md\"\n"
	_, err := Parse(filepath.Join(dir, "team.toml"), []byte(src))
	es, _ := AsErrors(err)
	var msgs []string
	for _, e := range es {
		msgs = append(msgs, e.Msg)
	}
	want := []string{
		`cannot read prompt_file "fifo": not a regular file`,
		`cannot read prompt_file "big.md": larger than 1 MiB`,
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("messages = %q, want %q", msgs, want)
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"worker-1", "T060", "a.b_c-D", strings.Repeat("x", 100)} {
		if !ValidName(ok) {
			t.Errorf("ValidName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", ".", "..", "a b", "a/b", "é", strings.Repeat("x", 101)} {
		if ValidName(bad) {
			t.Errorf("ValidName(%q) = true", bad)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
