package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/safefile"
)

// stateDir checks an existing state dir the way `run` will (see
// safefile.CheckStateDir: a directory of this user that no one else may
// write to — its group only when that is one of this user's groups, as on
// a scheduler's volume — empty or warden's), without creating or changing
// anything.
// The error is at state_dir, or at the top of the file for the default.
func (d *decoder) stateDir(team *Team, top table) {
	if _, err := safefile.CheckStateDir(team.StateDir); err != nil {
		d.errorf(top.key("state_dir"), "%v", err)
	}
}

// agentPaths checks that an agent's dir is an existing directory and that
// a command given as a path (argv[0] holding a '/') names an executable
// file, relative to that dir as the agent is started. A bare command name
// is looked up on PATH when the agent starts.
func (d *decoder) agentPaths(t table, a *Agent) {
	if _, given := t.vals["dir"]; given && a.Dir != "" {
		fi, err := os.Stat(a.Dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			d.errorf(t.key("dir"), "dir %s does not exist", a.Dir)
			return
		case err != nil:
			d.errorf(t.key("dir"), "dir: %v", err)
			return
		case !fi.IsDir():
			d.errorf(t.key("dir"), "dir %s is not a directory", a.Dir)
			return
		}
	}
	if len(a.Command) == 0 || !strings.Contains(a.Command[0], "/") {
		return
	}
	if problem := notExecutable(a.Dir, a.Command[0]); problem != "" {
		d.errorf(t.key("command"), "command %q %s", a.Command[0], problem)
	}
}

// notifyPaths checks a [[notify]] command given as a path the way an
// agent's is checked: it names an executable file (relative to the
// directory warden runs in, as the command is started). A bare name is
// looked up on PATH when it runs (warnings.go says when it is not there).
func (d *decoder) notifyPaths(t table, n *Notify) {
	if len(n.Command) == 0 || !strings.Contains(n.Command[0], "/") {
		return
	}
	cwd, _ := os.Getwd()
	if problem := notExecutable(cwd, n.Command[0]); problem != "" {
		d.errorf(t.key("command"), "command %q %s", n.Command[0], problem)
	}
}

// notExecutable says why path (relative to dir unless absolute) cannot be
// run, or "" when it can.
func notExecutable(dir, path string) string {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist (" + p + ")"
	case err != nil:
		return "cannot be run: " + err.Error()
	case fi.IsDir():
		return "is a directory (" + p + ")"
	case fi.Mode()&0o111 == 0 || syscall.Access(p, 1 /* X_OK */) != nil:
		return "is not executable (" + p + "): chmod +x it, or run it through its interpreter (command = [\"sh\", \"" + path + "\"])"
	}
	return ""
}
