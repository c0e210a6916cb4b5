package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/memory"
)

// commandLine is what starts the agent's process: its command with the
// generated settings that make the CLI report to warden through `warden
// hook` (written to the agent's settings dir in the state dir, 0600),
// without touching the user's own settings; and its environment (the team
// file's env, then warden's). The session adds what the profile needs.
func (a *Agent) commandLine() (argv, env []string, err error) {
	d := a.d
	env = envList(a.cfg.Env)
	dir := d.Dir.AgentSettings(a.cfg.Name)
	if err := d.Dir.MkdirPrivate(dir); err != nil {
		return nil, nil, fmt.Errorf("agent settings dir: %w", err)
	}
	root, err := filepath.Abs(d.Dir.Root)
	if err != nil {
		return nil, nil, fmt.Errorf("state dir: %w", err)
	}
	extraArgs, extraEnv, files, err := profile.Settings(a.cfg.Profile, profile.Options{
		WardenBin: d.WardenBin, StateDir: root, Agent: a.cfg.Name, Dir: dir,
		Socket: d.Dir.HookSocket(), Env: append(os.Environ(), env...), Protocol: protocol.SystemPrompt(a.cfg.Lead),
	})
	if err != nil {
		return nil, nil, err
	}
	for path, data := range files { // all inside dir; no link on the way is followed
		if err := safefile.WriteAtomic(dir, path, data); err != nil {
			return nil, nil, fmt.Errorf("agent settings: %w", err)
		}
	}
	a.carried = carries(extraArgs, files)
	argv = append([]string{a.cfg.Command[0]}, extraArgs...)
	argv = append(argv, a.cfg.Command[1:]...)
	return argv, append(env, extraEnv...), nil
}

// carries reports whether the CLI's settings put warden's protocol where
// it keeps instructions (an argument, as Claude's --append-system-prompt
// and Codex's developer_instructions, or a file, as Gemini's GEMINI.md):
// they hold its request line.
func carries(args []string, files map[string][]byte) bool {
	const mark = "CHECKPOINT REQUEST"
	for _, a := range args {
		if strings.Contains(a, mark) {
			return true
		}
	}
	for _, b := range files {
		if bytes.Contains(b, []byte(mark)) {
			return true
		}
	}
	return false
}

// envList turns the team file's env table into K=V pairs, in a stable order.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// walls are the box's walls of the agent's session (none without them):
// the team's, and its own settings dir among the holes of a read-only
// state dir — the Codex app-server's socket and log are made there by a
// process of the agent's.
func (a *Agent) walls(grp *memory.Group) box.WallSpec {
	w := grp.Walls()
	if len(w.ReadOnly) == 0 {
		return w
	}
	if dir, err := filepath.Abs(a.d.Dir.AgentSettings(a.cfg.Name)); err == nil {
		w.Writable = append(slices.Clip(w.Writable), dir)
	}
	return w
}
