package workspace

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// driverKeys are the keys of a filter, merge or diff driver that name a
// program, and the value that turns each off: an empty command is no
// command (git runs no filter, and a merge driver with no command is a
// merge that fails, never one that runs), and a filter that is not
// required may be skipped.
var driverKeys = map[string]map[string]string{
	"filter": {"clean": "", "smudge": "", "process": "", "required": "false"},
	"merge":  {"driver": ""},
	"diff":   {"command": "", "textconv": ""},
}

// driversOff returns the -c options that turn off every filter, merge and
// diff driver that the configuration git reads at s defines (the system's,
// the user's, the repository's, the worktree's).
//
// git has no switch that turns every filter off, and the attributes that
// choose a driver (a .gitattributes anywhere in the work tree, in the index
// or in a tree being merged or checked out) are the agent's to write. But an
// attribute only names a driver: the program is what the configuration says
// for that name, and a name no configuration defines runs nothing. So the
// drivers are turned off where they are defined — every name, whatever an
// attribute says — on the command line, which outranks every configuration
// file; this holds on every git version (the GIT_ATTR_SOURCE way, an empty
// tree as the attributes' source, needs git 2.40, still reads
// $GIT_DIR/info/attributes and drops the repository's own text and eol
// attributes). Configured drivers of the user's, git-lfs's among them, are
// off too for warden's calls: a task's branch holds the files as the agent
// wrote them.
//
// A driver whose name git's -c cannot carry (one with '=' in it) is an
// error: the call is not made.
func (g *Git) driversOff(ctx context.Context, s site) ([]string, error) {
	out, err := g.run(ctx, s, "", "config", "-z", "--name-only", "--get-regexp", `^(filter|merge|diff)\.`)
	if err != nil {
		if exitCode(err) == 1 { // no such key
			return nil, nil
		}
		return nil, fmt.Errorf("reading the git configuration's drivers: %w", err)
	}
	set := map[string]string{}
	for _, name := range strings.Split(out, "\x00") {
		first, last := strings.IndexByte(name, '.'), strings.LastIndexByte(name, '.')
		if first < 0 || last <= first {
			continue // no driver name: merge.ff, diff.renames, …
		}
		section, driver, key := name[:first], name[first+1:last], strings.ToLower(name[last+1:])
		value, runs := driverKeys[section][key]
		if !runs {
			continue
		}
		if strings.ContainsAny(driver, "=\n") {
			return nil, fmt.Errorf("the git configuration defines a %s driver named %q, which warden cannot turn off (git's -c cannot name it): rename it", section, driver)
		}
		set[section+"."+driver+"."+key] = value
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	off := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		off = append(off, "-c", k+"="+set[k])
	}
	return off, nil
}
