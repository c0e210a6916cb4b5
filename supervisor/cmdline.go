package supervisor

import (
	"fmt"
	"os"

	"github.com/wardenhq/warden/internal/atomicfile"
	"github.com/wardenhq/warden/protocol/hooks"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// commandLine is what starts the agent's process: its command with what its
// profile needs under a supervisor, and the generated settings that make the
// CLI report to warden through `warden hook` (written to
// state_dir/agents/{agent}/, 0600), without touching the user's own
// settings; and its environment (the team file's env, then warden's).
func (a *agent) commandLine() (argv, env []string, err error) {
	t := a.team
	env = envList(a.cfg.Env)
	dir := t.dir.Path("agents", a.cfg.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("agent settings dir: %w", err)
	}
	extraArgs, extraEnv, files, err := hooks.Settings(a.cfg.Profile, hooks.Options{
		WardenBin: t.wardenBin, StateDir: t.dir.Root, Agent: a.cfg.Name, Dir: dir,
		Socket: hookbus.SocketPath(t.dir.Root), Env: append(os.Environ(), env...),
	})
	if err != nil {
		return nil, nil, err
	}
	for path, data := range files {
		if err := atomicfile.Write(path, data, 0o600); err != nil {
			return nil, nil, fmt.Errorf("agent settings: %w", err)
		}
	}
	argv = append([]string{a.cfg.Command[0]}, extraArgs...)
	argv = append(argv, a.cfg.Command[1:]...)
	p := profileFor(a.cfg.Profile, a.log)
	return p.Command(argv), p.Env(append(env, extraEnv...)), nil
}

// wardenExecutable is the binary the CLIs' hooks run (`warden hook KIND`).
func wardenExecutable() string {
	if p := os.Getenv("WARDEN_BIN"); p != "" {
		return p
	}
	p, err := os.Executable()
	if err != nil {
		return "warden"
	}
	return p
}
