//go:build !e2e

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A team of one agent and one task.
const oneOfEach = "name = \"one\"\n[[agent]]\nname = \"w1\"\ncommand = [\"true\"]\n[[task]]\nid = \"T1\"\nprompt = \"One.\"\n"

// warden validate with no file checks the team file here, as status and
// the other commands find their team: the one valid *.toml (a
// pyproject.toml beside it is no team), else the team.toml warden init
// wrote, with its errors; none at all is bad usage that says so. Its
// counts are said in the singular for one ("1 agent, 1 task", not
// "1 agents, 1 tasks").
func TestValidateFindsTheTeamFileHere(t *testing.T) {
	validate := func(t *testing.T, files map[string]string, args ...string) (string, error) {
		dir := t.TempDir()
		for name, text := range files {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600)
		}
		t.Chdir(dir)
		var out, errOut bytes.Buffer
		err := cmdValidate(args, &out, &errOut)
		return out.String() + errOut.String(), err
	}
	code := func(err error) int {
		var e *exitError
		if errors.As(err, &e) {
			return e.code
		}
		if err != nil {
			return -1
		}
		return 0
	}

	out, err := validate(t, map[string]string{"nightly.toml": oneOfEach, "pyproject.toml": "[project]\nname = \"x\"\n"})
	if err != nil || !strings.HasPrefix(out, "nightly.toml: ok: team \"one\", 1 agent, 1 task\nBOX: ") { // then what the box holds here
		t.Errorf("the one team here: %v\n%s", err, out)
	}
	out, err = validate(t, map[string]string{"team.toml": oneOfEach + "bogus = 1\n"})
	if code(err) != 2 || !strings.Contains(err.Error(), "team.toml:8:") {
		t.Errorf("an invalid team.toml: exit %d, %v\n%s", code(err), err, out)
	}
	_, err = validate(t, map[string]string{"pyproject.toml": "[project]\n"})
	if code(err) != 2 || !strings.Contains(err.Error(), "no team file here") || !strings.Contains(err.Error(), "pyproject.toml") {
		t.Errorf("no team here: exit %d, %v", code(err), err)
	}
	_, err = validate(t, map[string]string{"a.toml": oneOfEach, "b.toml": oneOfEach})
	if code(err) != 2 || !strings.Contains(err.Error(), "2 team files here (a.toml, b.toml)") {
		t.Errorf("two teams here: exit %d, %v", code(err), err)
	}
}
