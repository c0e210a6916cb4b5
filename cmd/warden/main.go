// Command warden supervises LLM coding agents: it runs each agent under its
// own pseudo-terminal, restarts it by its policy, and stops the team cleanly.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: warden COMMAND [ARGS]

commands:
  run TEAM.toml [--resume [--from CHECKPOINT_ID] | --fresh] [--http ADDR]
                         run the team until every task is done, or until stopped; a run that
                         did not finish is carried on, a finished one followed by a new run;
                         --fresh starts a new run; --resume carries on explicitly; --from
                         resumes that checkpoint's task from it; --http serves the page
  status [TEAM.toml | --state-dir DIR] [--json] [--watch]
                         the dashboard, from the state dir, while running or after
                         (no TEAM.toml: ./.warden, or the only team *.toml here)
  checkpoint [TEAM.toml | --state-dir DIR]
                         ask the running team for a team checkpoint (creates the signal file)
  checkpoints [TEAM.toml | --state-dir DIR] [TASK] [--json]
                         the checkpoint history, newest first
  report [TEAM.toml | --state-dir DIR] [--json]
                         the run in one page: tasks, what needed a person, restarts, limits, checkpoints
  clean [TEAM.toml | --state-dir DIR]
                         remove the worktrees of completed tasks (their branches stay)
  land [TEAM.toml | --state-dir DIR]
                         merge the complete tasks' branches into warden/{team}/landed, land_verify on it
  replay [TEAM.toml | --state-dir DIR] AGENT [--session ID] [--speed N] [--list]
                         play a session's recording (logs/AGENT-SESSION.cast) in the terminal
  validate [TEAM.toml]   check a team file (default: the one here); every error with file:line:col
  wrap [--name N] [--task ID] [--profile P] [--state-dir DIR] -- CMD ARGS…
                         one agent in your own terminal, with checkpoints, handoff and restart around it
  hook KIND [ARG]        called by an agent CLI's hook or status line; hands its JSON to the supervisor
  codex-remote --socket PATH --log FILE -- CODEX…
                         run by warden under a Codex agent's pty: Codex's app-server, then its TUI attached to it
  hold --socket PATH [--orphan-timeout D]
                         run by warden for a team with holder = true: holds the agents' terminals so they outlive warden
  init [--cli CLI]… [FILE]
                         write a commented team file (team.toml) for the CLIs on PATH, or those named (init -h lists them)
  --version              warden's version, commit and Go version

operating a running team (over its control socket):
  ps [TEAM.toml | --state-dir DIR] [--json]
                         agents (state, dialog, task, attempt, pid, uptime, checkpoints) and tasks
  screen [TEAM.toml | --state-dir DIR] AGENT
                         the agent's screen right now, as text
  attach [TEAM.toml | --state-dir DIR] AGENT [--rw]
                         the agent's live terminal in yours; read-only unless --rw; Ctrl-\ detaches
  send [TEAM.toml | --state-dir DIR] AGENT [--force] [--wait D] TEXT…
                         type TEXT at the agent's next turn boundary (never into a dialog unless --force)
  answer [TEAM.toml | --state-dir DIR] AGENT allow-once|deny [--dialog ID]
                         answer the dialog the agent waits on with the CLI's own key (never "always")
  restart [TEAM.toml | --state-dir DIR] AGENT
                         a last checkpoint request, then a new session from that checkpoint
  stop [TEAM.toml | --state-dir DIR] [--now] [--no-wait]
                         a team checkpoint then exit (--now: without the last checkpoint requests)
  upgrade [TEAM.toml | --state-dir DIR] [--binary PATH] [--wait D]
                         replace the running warden with a new binary, same pid, its agents taken back
                         mid-turn, none restarted (holder = true)
  resume [TEAM.toml | --state-dir DIR] [AGENT] [--max-cost DOLLARS] [--max-tokens N]
                         agents parked at the team's budget go on (raised, or lifted for the run)
  serve [TEAM.toml | --state-dir DIR] --http ADDR [--http-token-file FILE] [--log-level L] [--log-format text|json]
                         the live dashboard page beside a running team (also: run --http ADDR)

exit codes: 0 every task complete, 1 a task failed or is blocked, 2 bad usage or team file, 130 stopped by the user
`

// exitError carries a process exit code up to main, the one place that exits.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func usageError(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

func main() {
	// A closed stdout (`warden run | head -1`) must not kill warden with
	// SIGPIPE: asked for, the signal is delivered here and writes fail with
	// EPIPE instead, which warden outlives.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	tuneGC()
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// realMain dispatches a subcommand and turns its error into an exit code.
func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "status":
		err = cmdStatus(args[1:], stdout, stderr)
	case "checkpoint":
		err = cmdCheckpoint(args[1:], stdout, stderr)
	case "checkpoints":
		err = cmdCheckpoints(args[1:], stdout, stderr)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "clean":
		err = cmdClean(args[1:], stdout, stderr)
	case "land":
		err = cmdLand(args[1:], stdout, stderr)
	case "wrap":
		err = cmdWrap(args[1:], stdout, stderr)
	case "validate":
		err = cmdValidate(args[1:], stdout, stderr)
	case "hook":
		err = cmdHook(args[1:], stdout, stderr)
	case "codex-remote":
		err = cmdCodexRemote(args[1:], stderr)
	case "hold":
		err = cmdHold(args[1:], stderr)
	case "ps":
		err = cmdPS(args[1:], stdout, stderr)
	case "screen":
		err = cmdScreen(args[1:], stdout, stderr)
	case "attach":
		err = cmdAttach(args[1:], stdout, stderr)
	case "send":
		err = cmdSend(args[1:], stdout, stderr)
	case "answer":
		err = cmdAnswer(args[1:], stdout, stderr)
	case "restart":
		err = cmdRestart(args[1:], stdout, stderr)
	case "stop":
		err = cmdStop(args[1:], stdout, stderr)
	case "upgrade":
		err = cmdUpgrade(args[1:], stdout, stderr)
	case "resume":
		err = cmdResume(args[1:], stdout, stderr)
	case "serve":
		err = cmdServe(args[1:], stdout, stderr)
	case "init":
		err = cmdInit(args[1:], stdout, stderr)
	case "version", "--version":
		err = cmdVersion(stdout)
	case "replay":
		err = cmdReplay(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usageError("unknown command %q\n%s", args[0], usage)
	}
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintln(stderr, "warden:", ee.err)
		}
		return ee.code
	case errors.Is(err, syscall.EPIPE):
		// The reader went away (`warden checkpoints | head`): as a program
		// killed by SIGPIPE would, without a word.
		return 128 + int(syscall.SIGPIPE)
	default:
		fmt.Fprintln(stderr, "warden:", err)
		return 1
	}
}
