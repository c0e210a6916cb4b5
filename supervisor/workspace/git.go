// Package workspace knows where an agent works: the git work tree around its
// directory (Info: branch and head read straight from .git, so that the
// checkpoint path runs no subprocess), and the git driver behind isolated
// workspaces (issue 10): a worktree and a branch per task, the task's work
// committed at every checkpoint, a finished branch fast-forwarded into base.
//
// The driver runs the git command: never a shell string, every call bounded
// by a timeout, its stderr in every error. What matters does not depend on
// the user's configuration: warden's commits are authored by warden, run no
// hooks and are never signed, whatever the repository or the user says.
//
// A worktree is the agent's, and the agent is untrusted (DESIGN §7): git
// never finds its repository from the worktree. Every call names the
// repository (--git-dir: the user's, or the worktree's admin dir inside it,
// found from what warden made) and the work tree (--work-tree) itself, with
// every setting that makes git run a program turned off on its command line
// (config; driversOff for the filter, merge and diff drivers, whose names
// only a configuration file knows), and a worktree is checked to be still
// the one warden made before anything is committed from it (Worktree.Verify).
package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
)

// DefaultTimeout bounds each git call when Git.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// killGrace is how long a git call has to exit after SIGTERM (git then
// removes its lock files) before its process group is killed.
const killGrace = 2 * time.Second

// Author is the name and email of every commit warden makes.
const (
	AuthorName  = "warden"
	AuthorEmail = "warden@localhost"
)

// config is passed with -c to every call; command-line options outrank every
// configuration file (the system's, the user's, the repository's). Hooks
// never run (core.hooksPath names no directory), nothing is signed, no
// automatic gc detaches a process that outlives the call, and rerere never
// resolves a conflict behind warden's back. And nothing else that git could
// run is run: no fsmonitor (a program, or git's own daemon), no transport at
// all (protocol.allow=never: warden never fetches or pushes, so ssh,
// core.sshCommand, remotes' uploadpack and receivepack, credential helpers
// and askpass programs are never reached; they are emptied all the same), no
// external diff, no pager (stdout is a pipe, and --no-pager), no submodule
// recursion. Filter, merge and diff drivers are per name: driversOff.
var config = []string{
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.sshCommand=",
	"core.askPass=",
	"core.pager=cat",
	"core.editor=true",
	"credential.helper=",
	"diff.external=",
	"protocol.allow=never",
	"submodule.recurse=false",
	"commit.gpgSign=false",
	"merge.verifySignatures=false",
	"rerere.enabled=false",
	"gc.auto=0",
	"maintenance.auto=false",
}

// keptGitEnv are the GIT_* variables of warden's environment a call
// inherits; every other one (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS
// set by a parent git, GIT_SSH_COMMAND, GIT_ASKPASS, GIT_EXTERNAL_DIFF, …)
// could point the call at another repository or make it run a program.
// warden's environment is the user's (the shell that started warden; an
// agent, warden's child, cannot change it), so the configuration files it
// names are the user's own: GIT_CONFIG_GLOBAL and the system file are kept,
// not replaced by /dev/null, because the user's global excludes file keeps
// what they never commit (.env, keys) out of warden's commits too, and
// every setting of theirs that runs a program is overridden above.
var keptGitEnv = map[string]bool{
	"GIT_EXEC_PATH": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"GIT_CONFIG_NOSYSTEM": true, "GIT_CEILING_DIRECTORIES": true,
	"GIT_TRACE": true, "GIT_TRACE2": true, "GIT_TRACE2_EVENT": true, "GIT_TRACE_PERFORMANCE": true,
}

// Git runs the git command for warden.
type Git struct {
	log hclog.Logger
	env []string
	// Timeout bounds each call (DefaultTimeout when zero). A caller's
	// context can only shorten it.
	Timeout time.Duration
}

// New returns a driver that runs git from PATH.
func New(logger hclog.Logger) *Git {
	env := []string{
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_EDITOR=true", "GIT_PAGER=cat", "LC_ALL=C",
		"GIT_AUTHOR_NAME=" + AuthorName, "GIT_AUTHOR_EMAIL=" + AuthorEmail,
		"GIT_COMMITTER_NAME=" + AuthorName, "GIT_COMMITTER_EMAIL=" + AuthorEmail,
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "LC_ALL" || strings.HasPrefix(name, "GIT_") && !keptGitEnv[name] {
			continue
		}
		env = append(env, kv)
	}
	return &Git{log: logger.Named("git"), env: env}
}

func (g *Git) timeout() time.Duration {
	if g.Timeout > 0 {
		return g.Timeout
	}
	return DefaultTimeout
}

// Error is a failed git call: what was run, where, and what git said.
type Error struct {
	Args   []string // after "git" and its options (--git-dir, -c …)
	Dir    string
	Stderr string
	Err    error // *exec.ExitError, or the context's error when the call was cut short
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("git %s (in %s): %v", strings.Join(e.Args, " "), e.Dir, e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// exitCode is git's exit status, or -1 when err is not an exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// site is where a call runs: the repository (--git-dir) and the work tree
// (--work-tree) named explicitly, never discovered, and the call's working
// directory. A zero gitDir lets git discover the repository from dir: only
// Find does that, in the agent's dir the team file names. off turns off the
// drivers the configuration defines (driversOff).
type site struct {
	dir      string
	gitDir   string
	workTree string
	off      []string
}

// run runs git with args at s and returns its stdout. stdin, when not
// empty, is written to git's standard input (else it reads /dev/null). git
// runs in its own process group: when the timeout or ctx ends the call, the
// whole group (git and its children) gets SIGTERM, on which git removes its
// lock files and half-made worktree; what still lives killGrace later at
// the most is killed.
func (g *Git) run(parent context.Context, s site, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(parent, g.timeout())
	defer cancel()
	argv := make([]string, 0, 3+2*len(config)+len(s.off)+len(args))
	argv = append(argv, "--no-pager")
	if s.gitDir != "" {
		argv = append(argv, "--git-dir="+s.gitDir)
	}
	if s.workTree != "" {
		argv = append(argv, "--work-tree="+s.workTree)
	}
	for _, c := range config {
		argv = append(argv, "-c", c)
	}
	argv = append(argv, s.off...)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	cmd.Dir = s.dir
	cmd.Env = g.env
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runner.InGroup(cmd, syscall.SIGTERM, killGrace)
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		runner.KillGroup(cmd) // whatever of the group outlived SIGTERM
	}
	g.log.Trace("ran", "args", args, "dir", s.dir, "took", time.Since(start), "err", err)
	if err == nil {
		return stdout.String(), nil
	}
	switch {
	case parent.Err() != nil:
		err = parent.Err()
	case ctx.Err() != nil:
		err = fmt.Errorf("%w: timed out after %v", ctx.Err(), g.timeout())
	}
	return stdout.String(), &Error{Args: args, Dir: s.dir, Stderr: strings.TrimSpace(stderr.String()), Err: err}
}

// lines splits git's output into non-empty lines.
func lines(out string) []string {
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' })
}

// checkRef refuses a ref or branch name git would read as an option.
func checkRef(what, ref string) error {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return fmt.Errorf("%s %q is not a valid git ref", what, ref)
	}
	return nil
}
