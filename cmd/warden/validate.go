package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/memory"
)

// cmdValidate checks a team file and prints every error with its position
// and the warnings beside them, in the file's order (exit 2), or its
// warnings, ok and what the agents' box holds here (exit 0).
func cmdValidate(args []string, stdout, stderr io.Writer) error {
	cmd := newCommand("validate", "usage: warden validate [TEAM.toml]", stderr)
	pos, err := cmd.flagsFirst(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return cmd.badUsage()
	}
	var file string
	if len(pos) == 1 {
		file = pos[0]
	} else if file, err = findTeamFile(); err != nil {
		return err // a usage error: exit 2
	}
	team, warnings, err := config.LoadWithWarnings(file)
	if errs, ok := config.AsErrors(err); ok && len(warnings) > 0 {
		return &exitError{code: 2, err: withWarnings(errs, warnings)}
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	for _, w := range warnings {
		fmt.Fprintln(stdout, w)
	}
	more := ""
	if len(warnings) > 0 {
		more = ", " + count(len(warnings), "warning")
	}
	fmt.Fprintf(stdout, "%s: ok: team %q, %s, %s%s\n", file, team.Name, count(len(team.Agents), "agent"), count(len(team.Tasks), "task"), more)
	// What the agents' box holds on this kernel, as `run` will say it.
	fmt.Fprintln(stdout, memory.ProbeBox(hclog.NewNullLogger(), team.Sandbox == config.SandboxBox))
	return nil
}

// loadTeam loads a team file; a bad one is a usage error (exit 2).
func loadTeam(path string) (*config.Team, error) {
	team, err := config.Load(path)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return team, nil
}

// withWarnings is a team file's errors and its warnings as one text, a
// line each in the file's order, and a count of both at the end.
func withWarnings(errs config.Errors, warnings []config.Warning) error {
	var lines []string
	i := 0
	for _, e := range errs {
		for ; i < len(warnings) && warnings[i].Pos.Line < e.Pos.Line; i++ {
			lines = append(lines, warnings[i].String())
		}
		lines = append(lines, e.Error())
	}
	for ; i < len(warnings); i++ {
		lines = append(lines, warnings[i].String())
	}
	lines = append(lines, count(len(errs), "error")+", "+count(len(warnings), "warning"))
	return errors.New(strings.Join(lines, "\n"))
}

// count is "1 error", "2 errors".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
