package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/protocol/profile"
)

// Warning is something in a valid team file that will likely not work as
// meant: `warden validate` prints it, and exits 0.
type Warning struct {
	Pos Position
	Msg string
}

// String formats the warning as `team.toml:12:11: warning: …`.
func (w Warning) String() string { return w.Pos.String() + ": warning: " + w.Msg }

// warnings looks for what validates but will likely not work: a command
// given by its bare name that is not on PATH (the agent's env may set
// PATH), an agent's or a [[notify]]'s, an agent of a CLI whose command has no permission setting
// that lets the CLI work unattended (every edit or command would wait on a
// dialog) or one under which a model approves its actions (Claude Code's
// auto mode, Codex's auto_review), a stale_warning that is not above checkpoint_interval +
// checkpoint_timeout (an agent that answers on time would be called stale),
// and a memory_floor at or above this machine's memory.
func warnings(t *Team, ix *posIndex) []Warning {
	var ws []Warning
	warn := func(path, format string, a ...any) {
		ws = append(ws, Warning{Pos: ix.at(path), Msg: fmt.Sprintf(format, a...)})
	}
	for i, a := range t.Agents {
		at := pathKey(pathIndex("agent", i), "command")
		if len(a.Command) == 0 {
			continue
		}
		if prog := a.Command[0]; !strings.Contains(prog, "/") && !onPath(prog, a.Env) {
			warn(at, "agent %q: command %q is not on PATH (is it installed?)", a.Name, prog)
		}
		if ok, hint := profile.Unattended(a.Profile, a.Command, a.Env); !ok {
			warn(at, "agent %q (profile %s) has no permission setting that lets it work unattended: "+
				"every edit or command it makes will wait on a dialog for a person (add %s)", a.Name, a.Profile, hint)
		}
		for _, m := range profile.ModelApproves(a.Profile, a.Command, a.Env) {
			warn(at, "agent %q (profile %s): %s", a.Name, a.Profile, m)
		}
	}
	for i, n := range t.Notify {
		if len(n.Command) == 0 {
			continue
		}
		if prog := n.Command[0]; !strings.Contains(prog, "/") && !onPath(prog, nil) {
			warn(pathKey(pathIndex("notify", i), "command"), "[[notify]] command %q is not on PATH (is it installed?): "+
				"each of its notifications would fail to start", prog)
		}
	}
	if sum := t.CheckpointInterval + t.CheckpointTimeout; t.StaleWarning <= sum {
		at := "stale_warning"
		for _, k := range []string{"stale_warning", "checkpoint_interval", "checkpoint_timeout"} {
			if _, ok := ix.pos[k]; ok {
				at = k
				break
			}
		}
		warn(at, "stale_warning %s is not above checkpoint_interval + checkpoint_timeout (%s): "+
			"an agent that answers its checkpoint requests on time would still be called stale", t.StaleWarning, sum)
	}
	if total := memTotal(); t.MemoryFloor > 0 && total > 0 && t.MemoryFloor >= total {
		warn("memory_floor", "memory_floor %s is not below this machine's memory (%s): no agent will ever start here",
			FormatSize(t.MemoryFloor), FormatSize(total))
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Pos.before(ws[j].Pos) })
	return ws
}

// onPath reports whether prog is an executable file in a directory of
// PATH — the agent's own PATH when its env sets one.
func onPath(prog string, env map[string]string) bool {
	path, ok := env["PATH"]
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		fi, err := os.Stat(filepath.Join(dir, prog))
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}

// memTotal is this machine's MemTotal (/proc/meminfo), 0 when unknown.
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb * KiB
			}
		}
	}
	return 0
}
