package config

import (
	"sort"
	"strings"

	"github.com/wardenhq/warden/protocol/profile"
)

// agent validates one [[agent]] table.
func (d *decoder) agent(t table) Agent {
	t.unknown("name", "command", "profile", "dir", "env", "restart", "max_restarts", "prompt",
		"on_dialog", "dialog_timeout", "workspace", "lead", "memory_max", "account", "channel")
	a := AgentDefaults()
	a.Pos = d.ix.at(t.path)
	a.Name, _ = d.name(t, "name", "agent name")
	if argv, present, _ := t.argv("command"); present {
		a.Command = argv
	} else {
		d.errorf(t.path, "missing key %q%s", "command", t.where)
	}
	a.Profile = t.oneOf("profile", a.Profile, profile.Names()...)
	a.Dir = d.resolve(a.Dir)
	if dir, ok := t.nonEmpty("dir"); ok {
		a.Dir = d.resolve(dir)
	}
	a.Env = d.env(t)
	a.Restart = t.oneOf("restart", a.Restart, RestartNever, RestartOnFailure, RestartAlways)
	a.MaxRestarts = t.integer("max_restarts", int64(a.MaxRestarts), 0, 1<<31-1, "0 or more")
	if p, ok := t.nonEmpty("prompt"); ok {
		a.Prompt = p
	}
	a.OnDialog = t.oneOf("on_dialog", "", DialogWait, DialogDeny)              // "": the team's
	a.DialogTimeout, _ = t.duration("dialog_timeout", 0)                       // 0: the team's
	a.Workspace = t.oneOf("workspace", "", WorkspaceShared, WorkspaceWorktree) // "": the team's
	a.Lead = t.boolean("lead", false)
	a.Account = d.account(t)
	a.MemoryMax = t.size("memory_max", 0, MinMemoryMax, "32MB")
	a.Channel = t.oneOf("channel", "", ChannelAppServer, ChannelScreen)
	if a.Channel == ChannelAppServer && profile.AppServerOf(a.Profile) == nil {
		d.errorf(t.key("channel"), "channel %q needs a profile whose CLI has an app-server (%s), not %q",
			a.Channel, strings.Join(appServerProfiles(), ", "), a.Profile)
	}
	d.agentPaths(t, &a)
	return a
}

// env validates the env table: names without '=' or NUL, string values.
func (d *decoder) env(t table) map[string]string {
	v, present := t.vals["env"]
	if !present {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf(t.key("env"), "env must be a table of strings, not %s", tomlType(v))
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	env := make(map[string]string, len(m))
	for _, k := range names {
		at := pathKey(t.key("env"), k)
		switch {
		case k == "":
			d.errorf(at, "env variable name must not be empty")
			continue
		case strings.ContainsAny(k, "=\x00"):
			d.errorf(at, "env variable name %q must not contain '=' or NUL", k)
			continue
		}
		s, ok := m[k].(string)
		if !ok {
			d.errorf(at, "env.%s must be a string, not %s", k, tomlType(m[k]))
			continue
		}
		if strings.ContainsRune(s, 0) {
			d.errorf(at, "env.%s must not contain NUL", k) // the value itself is never echoed
			continue
		}
		env[k] = s
	}
	return env
}

// appServerProfiles are the profiles whose CLI has an app-server.
func appServerProfiles() []string {
	var out []string
	for _, c := range profile.CLIs() {
		if c.AppServer != nil {
			out = append(out, c.Name)
		}
	}
	return out
}
