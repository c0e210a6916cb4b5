package main

import (
	"flag"
	"io"
	"strings"
)

// command is the preamble every command shares: its flag set (errors and
// -h to stderr; a bad flag or -h is exit 2), its usage line, and — for a
// command that finds a team — --state-dir, with the ways it takes the team
// from its arguments (team, teamDir). Each command adds its own flags to
// it before it parses.
type command struct {
	*flag.FlagSet
	usage    string
	stateDir *string // --state-dir; nil for a command that takes none
}

// newCommand is warden NAME's command line, with usage as its usage line.
func newCommand(name, usage string, stderr io.Writer) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &command{FlagSet: fs, usage: usage}
}

// newTeamCommand is newCommand for a command that finds a team: TEAM.toml
// among its arguments, or --state-dir DIR, or with neither the current
// directory's team (findTeam).
func newTeamCommand(name, usage string, stderr io.Writer) *command {
	c := newCommand(name, usage, stderr)
	c.stateDir = c.String("state-dir", "", "the team's state directory (instead of TEAM.toml)")
	return c
}

// badUsage is the command's usage line as a usage error (exit 2).
func (c *command) badUsage() error { return usageError("%s", c.usage) }

// args parses flags that may come before or after the positional
// arguments, which it returns.
func (c *command) args(args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := c.Parse(args); err != nil {
			return nil, &exitError{code: 2}
		}
		if c.NArg() == 0 {
			break
		}
		pos = append(pos, c.Arg(0))
		args = c.Args()[1:]
	}
	return pos, nil
}

// flagsFirst parses flags that come before the positional arguments, which
// it returns: every word from the first that is not a flag (or after --)
// is the command's own (warden wrap's command line, say).
func (c *command) flagsFirst(args []string) ([]string, error) {
	if err := c.Parse(args); err != nil {
		return nil, &exitError{code: 2}
	}
	return c.Args(), nil
}

// team resolves the team of a command that talks to a running warden:
// TEAM.toml as the first argument (a name ending in .toml), --state-dir
// DIR, or with neither the current directory's team (findTeam, as status
// and replay); it returns the state dir and the other arguments.
func (c *command) team(args []string) (string, []string, error) {
	pos, err := c.args(args)
	if err != nil {
		return "", nil, err
	}
	if *c.stateDir != "" {
		return *c.stateDir, pos, nil
	}
	if len(pos) > 0 && strings.HasSuffix(strings.ToLower(pos[0]), ".toml") {
		team, err := loadTeam(pos[0])
		if err != nil {
			return "", nil, err
		}
		return team.StateDir, pos[1:], nil
	}
	dir, _, err := findTeam()
	if err != nil {
		return "", nil, usageError("%v\n%s", err, c.usage)
	}
	return dir, pos, nil
}

// teamDir resolves the state dir of a command that takes nothing else:
// TEAM.toml or --state-dir, or with neither the current directory's team
// (findTeam); flags may come before or after the file.
func (c *command) teamDir(args []string) (string, error) {
	pos, err := c.args(args)
	if err != nil {
		return "", err
	}
	switch {
	case *c.stateDir != "" && len(pos) == 0:
		return *c.stateDir, nil
	case *c.stateDir == "" && len(pos) == 1:
		team, err := loadTeam(pos[0])
		if err != nil {
			return "", err
		}
		return team.StateDir, nil
	case *c.stateDir == "" && len(pos) == 0:
		dir, _, err := findTeam()
		return dir, err
	}
	return "", c.badUsage()
}
