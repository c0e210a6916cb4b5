//go:build !e2e

package profile

import (
	"slices"
	"strings"
	"testing"
)

// The CLIs are named as the team file spells them, plain first.
func TestNames(t *testing.T) {
	if got, want := Names(), []string{"plain", "claude", "codex", "copilot", "gemini", "opencode", "qwen"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if _, err := For("aider"); err == nil || !strings.Contains(err.Error(), "plain, claude, codex, copilot, gemini, opencode, qwen") {
		t.Errorf("For(aider): %v, want the known ones named", err)
	}
	if p, err := For(""); err != nil || p.Name != "plain" {
		t.Errorf(`For("") = %v, %v; want plain`, p, err)
	}
}

// A command's profile by its program: an exact name first, then the
// longest name that begins it, else plain.
func TestGuess(t *testing.T) {
	for program, want := range map[string]string{
		"claude": "claude", "/usr/local/bin/claude.exe": "claude", "claude-2.1": "claude",
		"codex": "codex", "/opt/codex/codex.js": "codex",
		"gemini": "gemini", "gemini-nightly": "gemini",
		"aider": "plain", "/bin/sh": "plain", "cla": "plain",
	} {
		if got := Guess(program); got != want {
			t.Errorf("Guess(%q) = %s, want %s", program, got, want)
		}
	}
}

// What each CLI registered holds together: the agent `warden init` writes
// for it works unattended by the CLI's own rule and is guessed as that CLI,
// every hook kind belongs to one CLI and reads through it, and every
// HookCall is of the CLI's own kinds.
func TestEveryCLIHoldsTogether(t *testing.T) {
	kinds := map[string]string{}
	for _, c := range CLIs() {
		if len(c.Init.Command) == 0 {
			t.Errorf("%s: warden init would write no agent for it", c.Name)
			continue
		}
		if ok, hint := Unattended(c.Name, c.Init.Command, nil); !ok {
			t.Errorf("%s: the agent warden init writes, %q, asks for every edit (add %s)", c.Name, c.Init.Command, hint)
		}
		if len(c.Programs) > 0 && Guess(c.Init.Command[0]) != c.Name {
			t.Errorf("%s: its init command %q is guessed as %s", c.Name, c.Init.Command[0], Guess(c.Init.Command[0]))
		}
		if p, err := For(c.Name); err != nil || p.Name != c.Name {
			t.Errorf("For(%s) = %v, %v", c.Name, p, err)
		}
		for _, k := range c.Kinds {
			if other, dup := kinds[k]; dup {
				t.Errorf("hook kind %s is %s's and %s's", k, other, c.Name)
			}
			kinds[k] = c.Name
			if call, known := HookCallOf(k); !known {
				t.Errorf("%s: HookCallOf(%s) = %+v, %v", c.Name, k, call, known)
			}
			if !Sends(c.Name, k) || !Sends("plain", k) {
				t.Errorf("%s: Sends(%[1]s, %[2]s) = %v, Sends(plain, %[2]s) = %v", c.Name, k, Sends(c.Name, k), Sends("plain", k))
			}
		}
	}
	if got := HookKinds(); len(got) != len(kinds) {
		t.Errorf("HookKinds() = %v, want the %d kinds of the CLIs", got, len(kinds))
	}
	if _, known := HookCallOf("aider-stop"); known {
		t.Error("HookCallOf knows a kind no CLI sends")
	}
	if f := ReadHook(KindClaudeStop, []byte(`{"last_assistant_message":"hi"}`)); !f.HasAnswer || f.Answer != "hi" {
		t.Errorf("ReadHook(claude-stop) = %+v", f)
	}
	if f := ReadHook("aider-stop", []byte(`{"last_assistant_message":"hi"}`)); f.HasAnswer {
		t.Errorf("ReadHook of an unknown kind = %+v", f)
	}
}

// Register refuses, before changing anything, a CLI that would make two
// answers to one question: a name or hook kind already taken, kinds
// without a reader, a HookCall for another CLI's kind.
func TestRegisterRefusesMistakes(t *testing.T) {
	read := func(string, []byte) HookFacts { return HookFacts{} }
	before, kindsBefore := Names(), HookKinds()
	for what, c := range map[string]CLI{
		"no name":            {},
		"a quote in a name":  {Name: `x"y`},
		"a name taken":       {Name: "claude"},
		"a kind taken":       {Name: "mistake1", Kinds: []string{KindClaudeStop}, Hook: read},
		"kinds, no reader":   {Name: "mistake2", Kinds: []string{"mistake2-stop"}},
		"another CLI's call": {Name: "mistake3", Kinds: []string{"mistake3-stop"}, Hook: read, Calls: map[string]HookCall{KindCodexNotify: {ArgPayload: true}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register took %s", what)
				}
			}()
			Register(c)
		}()
	}
	if !slices.Equal(Names(), before) || !slices.Equal(HookKinds(), kindsBefore) {
		t.Errorf("after refusals: Names %v, kinds %v; want %v, %v", Names(), HookKinds(), before, kindsBefore)
	}
}
