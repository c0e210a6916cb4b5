package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wardenhq/warden/internal/clock"
	prof "github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
)

const wrapUsage = "usage: warden wrap [--name N] [--task ID] [--profile P] [--state-dir DIR] [--checkpoint-interval D] [--log-level L] [--log-format text|json] -- CMD ARGS…"

// wrapPrompt is the wrapped agent's first prompt after the preamble: the
// user drives the session; warden only keeps its checkpoints.
const wrapPrompt = "The user works with you in this terminal session and will tell you what to do. " +
	"Until then, reply with one word: ready."

// cmdWrap runs one agent in the user's own terminal with the checkpoint
// protocol around it, and returns the agent's exit code.
func cmdWrap(args []string, stdout, stderr io.Writer) error {
	cmd := newCommand("wrap", wrapUsage, stderr)
	name := cmd.String("name", "", "agent name (default: the command's base name)")
	task := cmd.String("task", "wrap", "task id its checkpoints are recorded under")
	profile := cmd.String("profile", "", strings.Join(prof.Names(), " | ")+" (default: from the command's name)")
	stateDir := cmd.String("state-dir", config.DefaultStateDir, "state directory")
	interval := cmd.Duration("checkpoint-interval", config.Defaults().CheckpointInterval,
		"the least time between checkpoint requests; one is typed only after your own typing since the last checkpoint")
	logs := addLogFlags(cmd.FlagSet) // the log goes to STATE_DIR/logs/warden.log only: the terminal is the agent's
	argv, err := cmd.flagsFirst(args)
	if err != nil {
		return err
	}
	if err := logs.check(); err != nil {
		return err
	}
	if len(argv) == 0 {
		return cmd.badUsage()
	}
	if *interval <= 0 {
		return usageError("--checkpoint-interval %s: want a positive duration", *interval)
	}
	cfg, err := wrapTeam(argv, *name, *task, *profile, *stateDir)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	cfg.CheckpointInterval = *interval
	logFile, err := supervisor.OpenLog(cfg.StateDir, cfg.LogMaxSize, cfg.LogKeep, nil)
	if err != nil {
		return err
	}
	defer logFile.Close()
	logger := hclog.New(logs.options(logFile, hclog.LevelFromString(logs.level)))

	in := os.Stdin
	fd := in.Fd()
	size := runner.Size{Rows: runner.DefaultRows, Cols: runner.DefaultCols}
	if term.IsTerminal(fd) {
		if w, h, err := term.GetSize(fd); err == nil && w > 0 && h > 0 {
			size = runner.Size{Rows: uint16(h), Cols: uint16(w)}
		}
		state, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("wrap: raw mode: %w", err)
		}
		defer term.Restore(fd, state)
	}
	team, err := supervisor.New(logger, cfg, clock.Real{}, nil)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer team.Close() // once every actor below has ended
	team.AttachTerminal(in, stdout, size)

	// The actors, as warden run's (run.go), with the user's keys as one
	// more edge: what the user types goes to the agent.
	var g run.Group
	for _, e := range []*supervisor.Edge{team.SignalWatch(), team.HookServer(), team.ControlServer(), team.Dashboard(),
		team.Budget(), team.Keys()} {
		addEdgeActor(&g, e)
	}
	var result supervisor.Result
	addTeamActor(&g, team, &result)
	// The terminal is raw, so Ctrl-C reaches the agent as a byte; SIGTERM
	// and SIGHUP to warden stop it cleanly. SIGWINCH: the agent's window
	// follows the user's terminal.
	addSignalActor(&g, logger, team, func() {
		if w, h, err := term.GetSize(fd); err == nil && w > 0 && h > 0 {
			team.Resize(runner.Size{Rows: uint16(h), Cols: uint16(w)})
		}
	})
	if err := g.Run(); err != nil {
		return err
	}
	switch {
	case result.Err != nil:
		return &exitError{code: 1, err: result.Err}
	case result.Stopped:
		return &exitError{code: 130}
	case len(result.Agents) == 1 && result.Agents[0].ExitCode != 0:
		return &exitError{code: result.Agents[0].ExitCode}
	}
	return nil
}

// wrapTeam is the team of one agent that `warden wrap` runs.
func wrapTeam(argv []string, name, task, profile, stateDir string) (*config.Team, error) {
	base := filepath.Base(argv[0])
	if name == "" {
		name = strings.Map(func(r rune) rune {
			if r == '.' || r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
				return r
			}
			return '-'
		}, base)
	}
	if profile == "" {
		profile = prof.Guess(argv[0])
	}
	if !config.ValidName(name) || !config.ValidName(task) {
		return nil, fmt.Errorf("wrap: --name %q and --task %q must match [A-Za-z0-9._-]+", name, task)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("wrap: %w", err)
	}
	if !filepath.IsAbs(stateDir) {
		stateDir = filepath.Join(cwd, stateDir)
	}
	team := config.Defaults()
	team.Name, team.StateDir = "wrap-"+name, stateDir
	team.SignalFile = filepath.Join(stateDir, config.DefaultSignalFile)
	agent := config.AgentDefaults()
	agent.Name, agent.Command, agent.Profile, agent.Dir, agent.Restart = name, argv, profile, cwd, config.RestartNever
	team.Agents = []config.Agent{agent}
	team.Tasks = []config.Task{{ID: task, Title: "wrapped session of " + base, Prompt: wrapPrompt, Agent: name}}
	return &team, nil
}
