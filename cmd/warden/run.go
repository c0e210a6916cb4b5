package main

import (
	"flag"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
)

// cmdRun runs a team: one actor owns the team, one turns signals into a
// clean stop (first) or a forced one (second).
func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logs := addLogFlags(fs)
	resume := fs.Bool("resume", false, "continue a team whose supervisor died, from its state dir")
	from := fs.String("from", "", "with --resume: resume that checkpoint's task from it (an id `warden checkpoints` lists)")
	httpAddr := fs.String("http", "", "serve the live dashboard page on ADDR (host:port; loopback unless a token is set)")
	httpToken := fs.String("http-token", os.Getenv("WARDEN_HTTP_TOKEN"), "the page's token (default $WARDEN_HTTP_TOKEN; made up and printed once for a non-loopback ADDR)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (*from != "" && !*resume) {
		return usageError("usage: warden run TEAM.toml [--resume [--from CHECKPOINT_ID]] [--log-level L] [--log-format text|json]")
	}
	if err := logs.check(); err != nil {
		return err
	}
	cfg, warnings, err := config.LoadWithWarnings(pos[0])
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	// On a terminal warden's own lines are what the user sees: its log goes
	// to logs/warden.log (and warnings to stderr), the dashboard is a footer
	// redrawn in place. Piped or under CI, everything is as it always was.
	terminal := onTerminal(stdout)
	if terminal {
		con := newConsole(stdout.(*os.File))
		stdout, stderr = con, con.Beside(stderr)
	}
	logFile, err := supervisor.OpenLog(cfg.StateDir, cfg.LogMaxSize, cfg.LogKeep, logFailed(stderr))
	if err != nil {
		return &exitError{code: 2, err: err} // the state dir, as supervisor.New would say
	}
	defer logFile.Close()
	logger := logs.runLogger(logFile, stderr, terminal)
	for _, w := range warnings {
		logger.Warn("team file: " + w.String())
	}
	team, err := supervisor.New(logger, cfg, clock.Real{}, stdout)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if *resume {
		if err := team.Resume(); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	if *from != "" {
		if err := team.ResumeFromCheckpoint(*from); err != nil {
			return &exitError{code: 2, err: err}
		}
	}

	var result supervisor.Result
	var g run.Group
	addTeamActor(&g, team, &result)
	if *httpAddr != "" {
		srv, err := pageServer(logger, *httpAddr, *httpToken, cfg.StateDir, stdout)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		addPageActor(&g, srv)
	}
	addSignalActor(&g, logger, team, nil)
	if err := g.Run(); err != nil {
		return err
	}
	if code := result.ExitCode(); code != 0 {
		return &exitError{code: code, err: result.Err}
	}
	return nil
}

func newLogger(w io.Writer, level string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:   "warden",
		Level:  hclog.LevelFromString(level),
		Output: w,
	})
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
