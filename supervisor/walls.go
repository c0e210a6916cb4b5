package supervisor

import (
	"fmt"
	"path/filepath"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
)

// readOnlyStateDir puts the state dir behind the box's walls read-only
// (sandbox = "box", where the walls stand): no process of an agent writes
// what decides for it — state.json, the records and archives under
// checkpoints/, events.jsonl, STATUS.md, the handoffs, land.json, the
// signal file, the logs and recordings. The holes are what an agent's own
// processes write there: `warden hook`'s spool (hooks/, while no warden
// listens) and its log of failures (logs/hook.log), made here so that they
// are there when the walls go up; the agent's own settings dir (the Codex
// app-server's socket and log, the Gemini CLI's home: supervisor/agent) and its work dir (a task
// worktree under worktrees/, a land task's too) are added for each session.
// A lead asks for a team checkpoint through its screen (CHECKPOINT
// COMPLETE), never through the signal file, which only people and warden
// write.
func (t *Team) readOnlyStateDir() error {
	if t.cfg.Sandbox != config.SandboxBox {
		return nil
	}
	d := t.dir
	if err := d.MkdirPrivate(d.HookSpools()); err != nil {
		return fmt.Errorf("the hook spool dir: %w", err)
	}
	f, err := state.OpenPrivate(d.Root, d.HookLog())
	if err != nil {
		return fmt.Errorf("the hook log: %w", err)
	}
	f.Close()
	var abs []string // the walls are built in the agent's work dir
	for _, p := range []string{d.Root, d.HookSpools(), d.HookLog()} {
		a, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("the state dir: %w", err)
		}
		abs = append(abs, a)
	}
	t.deps.Memory.ReadOnly(abs[:1], abs[1:]...)
	return nil
}
