package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/webpage"
)

// runOptions is warden run's command line.
type runOptions struct {
	teamFile                string
	logs                    *logFlags
	resume, fresh           bool
	from                    string
	httpAddr, httpTokenFile string
	// httpToken is $WARDEN_HTTP_TOKEN, taken out of the environment.
	httpToken string
	// upgradedFrom is $WARDEN_UPGRADED_FROM: this process is the binary
	// `warden upgrade` exec'd in place of that version (upgrade.go).
	upgradedFrom string
}

const runUsage = "usage: warden run TEAM.toml [--resume [--from CHECKPOINT_ID] | --fresh] [--log-level L] [--log-format text|json] [--http ADDR [--http-token-file FILE]]"

// parseRunArgs reads warden run's command line (flags before or after the
// team file).
func parseRunArgs(args []string, stderr io.Writer) (runOptions, error) {
	cmd := newCommand("run", runUsage, stderr)
	o := runOptions{logs: addLogFlags(cmd.FlagSet)}
	cmd.BoolVar(&o.resume, "resume", false, "carry on the run the state dir holds, even one that finished (a state dir without one: start a run)")
	cmd.BoolVar(&o.fresh, "fresh", false, "start a new run, keeping the state dir's earlier records as history (default: carry on a run that did not finish)")
	cmd.StringVar(&o.from, "from", "", "with --resume: resume that checkpoint's task from it (an id `warden checkpoints` lists)")
	cmd.StringVar(&o.httpAddr, "http", "", "serve the live dashboard page on ADDR (host:port), behind its token")
	cmd.StringVar(&o.httpTokenFile, "http-token-file", "", tokenFileUsage)
	if err := refuseTokenOnArgv(args); err != nil {
		return o, err
	}
	o.httpToken = takeEnvToken()
	o.upgradedFrom = os.Getenv(supervisor.UpgradedFromEnv)
	os.Unsetenv(supervisor.UpgradedFromEnv) // never an agent's
	pos, err := cmd.args(args)
	if err != nil {
		return o, err
	}
	if len(pos) != 1 || (o.from != "" && !o.resume) || (o.fresh && o.resume) {
		return o, cmd.badUsage()
	}
	o.teamFile = pos[0]
	return o, o.logs.check()
}

// cmdRun runs a team: the team's generations, its edges, the page and the
// signal handler, each an actor of one run.Group.
func cmdRun(args []string, stdout, stderr io.Writer) error {
	o, err := parseRunArgs(args, stderr)
	if err != nil {
		return err
	}
	cfg, warnings, err := config.LoadWithWarnings(o.teamFile)
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
	logger := o.logs.runLogger(logFile, stderr, terminal)
	for _, w := range warnings {
		logger.Warn("team file: " + w.String())
	}
	team, err := supervisor.New(logger, cfg, clock.Real{}, stdout)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer team.Close() // once every actor below has ended
	// What can fail is checked before the run begins: nothing is printed
	// (CARRYING ON, NEW RUN) or logged (run_started) for a run that then
	// does not start — a --from the history does not hold, a page that
	// cannot be bound.
	team.SetUpgrade(versionLine(), upgradeEnv(o), o.upgradedFrom)
	how := supervisor.StartAuto
	switch {
	case o.upgradedFrom != "":
		// The same argv as the warden this one replaces: its run is carried
		// on whatever the flags say (--fresh would stop the agents).
		how = supervisor.StartResume
	case o.fresh:
		how = supervisor.StartFresh
	case o.from != "":
		how = supervisor.StartReopen
		if err := team.ResumeFrom(o.from); err != nil {
			return &exitError{code: 2, err: err}
		}
	case o.resume:
		how = supervisor.StartResume
	}
	if cfg.Sandbox == config.SandboxBox {
		hidden, err := pageTokenFiles(o.httpTokenFile, cfg.StateDir)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		team.HideFromAgents(hidden...)
	}
	var page *webpage.Server
	var pageLine string
	if o.httpAddr != "" {
		if page, pageLine, err = listenPage(logger, o.httpAddr, o.httpTokenFile, o.httpToken, cfg.StateDir); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	began, err := team.Begin(how)
	if err != nil || began.Finished {
		if page != nil {
			page.Close()
		}
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if began.Finished {
		if began.ExitCode != 0 {
			return &exitError{code: began.ExitCode, err: fmt.Errorf("run %s finished with a task not complete", began.RunID)}
		}
		return nil
	}

	// The actors. oklog/run starts them together and, when the first
	// returns, interrupts the rest and waits for all:
	//   - the page, when asked for, was bound before the run began: a bad
	//     address is exit 2 before anything is printed or logged;
	//   - the team's edges are set up as they are made, before any agent
	//     starts: the signal file watched before anyone writes it, the hook
	//     socket bound before an agent's first hook fires, the control socket
	//     before the first `warden ps`, the dashboard and the budget's clock
	//     (max_runtime counts from here);
	//   - the team runs its generations; it is the one that returns — every
	//     task done, or the team stopped and every process group gone — and
	//     the edges and the page are taken down after it; unless an edge
	//     fails (it could not be set up, or its socket died): that edge
	//     returns first with its error, the team is stopped for it (a team
	//     checkpoint) and warden exits 1 with the error (a page that fails
	//     never ends the team);
	//   - the signal handler turns the first INT, TERM or HUP into a clean
	//     stop (a team checkpoint), the second into a forced one.
	var g run.Group
	if page != nil {
		fmt.Fprintln(team.Out(), pageLine)
		team.SetPage(page.URL()) // notifications link to the page, without its token
		addPageActor(&g, page)
	}
	for _, e := range []*supervisor.Edge{team.SignalWatch(), team.HookServer(), team.ControlServer(), team.Dashboard(), team.Budget()} {
		addEdgeActor(&g, e)
	}
	var result supervisor.Result
	addTeamActor(&g, team, &result)
	addSignalActor(&g, logger, team, nil)
	err = g.Run() // an edge's failure, which stopped the team (Team.Fail), or nil
	if line := carryOnLine(result, began.RunID, o.teamFile); line != "" {
		fmt.Fprintln(team.Out(), line)
	}
	if err != nil {
		return err
	}
	switch {
	case result.Land != nil: // land_by: the run landed itself
		result.Land.Print(team.Out())
	case result.LandErr != nil:
		fmt.Fprintf(team.Out(), "NOT LANDED: %v; `warden land` tries again\n", result.LandErr)
	case cfg.Landing.Land != config.LandNone && cfg.Landing.LandBy == "" && result.ExitCode() == 0:
		// Every task done: the complete ones are landed on the team's
		// integration branch, once the team has let go of its state dir.
		// A land that stops says why (NOT LANDED:, land_stopped); the run's
		// exit code stays the tasks' (`warden land` goes on by hand).
		team.Close()
		landAtEnd(team.Out(), logger, cfg)
	}
	if code := result.ExitCode(); code != 0 {
		return &exitError{code: code, err: result.Err}
	}
	return nil
}

// landAtEnd lands a finished run's complete tasks (land = "branch" or
// "ff-base"), as `warden land TEAM.toml` would.
func landAtEnd(out io.Writer, logger hclog.Logger, cfg *config.Team) {
	res, err := supervisor.Land(context.Background(), logger, cfg.StateDir, cfg.Landing)
	if err != nil {
		fmt.Fprintf(out, "NOT LANDED: %v; `warden land` tries again\n", err)
		return
	}
	res.Print(out)
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

// carryOnLine is the line a run that stopped with tasks that can go on
// ends with: every task counted — complete, failed, open (of which those
// waiting for their blocked_by tasks and those their agent reported
// blocked), the numbers adding up to the run's tasks — and how to carry it
// on. A run none of whose tasks can go on finished: no line.
func carryOnLine(res supervisor.Result, run, teamFile string) string {
	canGo, complete, failed, waiting, blocked := 0, 0, 0, 0, 0
	for _, t := range res.Tasks {
		switch t.State {
		case queue.Pending, queue.Running, queue.Verifying, queue.Reviewing:
			canGo++
		case queue.Complete:
			complete++
		case queue.Failed:
			failed++
		}
		switch t.Label() {
		case queue.LabelWaiting:
			waiting++
		case queue.LabelBlocked:
			blocked++
		}
	}
	if canGo == 0 {
		return ""
	}
	counts := fmt.Sprintf("%d complete", complete)
	if failed > 0 {
		counts += fmt.Sprintf(", %d failed", failed)
	}
	counts += fmt.Sprintf(", %d open", len(res.Tasks)-complete-failed)
	var among []string
	switch {
	case waiting == 1:
		among = append(among, "1 waiting for its blocked_by tasks")
	case waiting > 1:
		among = append(among, fmt.Sprintf("%d waiting for their blocked_by tasks", waiting))
	}
	if blocked > 0 {
		among = append(among, fmt.Sprintf("%d reported blocked", blocked))
	}
	if len(among) > 0 {
		counts += " (" + strings.Join(among, ", ") + ")"
	}
	return fmt.Sprintf("STOPPED: run %s with %s: %s; `warden run %s` carries it on from their checkpoints (`--fresh` starts over)",
		run, count(len(res.Tasks), "task"), counts, teamFile)
}
