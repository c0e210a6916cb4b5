// Package state owns a team's state directory (DESIGN §5): where every file
// lives (Layout), the lock that allows one supervisor per team, the event
// log, the snapshot behind state.json, STATUS.md and `warden status`, and
// the checkpoint store. No other package names a path inside the state dir.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/wardenhq/warden/internal/unixsock"
)

// Layout names every file and directory of a state dir. Root is absolute
// (or as given); the methods only join paths.
type Layout struct {
	Root string
}

// NewLayout returns the layout of the state dir at root.
func NewLayout(root string) Layout { return Layout{Root: root} }

func (l Layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.Root}, elem...)...)
}

// Lock is the flock file that allows one supervisor per team.
func (l Layout) Lock() string { return l.path("lock") }

// State is state.json: what `warden status` and --resume read.
func (l Layout) State() string { return l.path("state.json") }

// Status is STATUS.md.
func (l Layout) Status() string { return l.path("STATUS.md") }

// Events is events.jsonl.
func (l Layout) Events() string { return l.path("events.jsonl") }

// Checkpoints is the checkpoint store's directory.
func (l Layout) Checkpoints() string { return l.path("checkpoints") }

// Logs is the directory of the agents' terminal logs.
func (l Layout) Logs() string { return l.path("logs") }

// AgentLog is an agent's raw terminal output.
func (l Layout) AgentLog(agent string) string { return l.path("logs", agent+".log") }

// WardenLog is warden's own log (hclog): always under wrap, and under run
// beside stderr.
func (l Layout) WardenLog() string { return l.path("logs", "warden.log") }

// HookLog is where `warden hook` logs what failed.
func (l Layout) HookLog() string { return l.path("logs", "hook.log") }

// Handoff is the latest team handoff.
func (l Layout) Handoff() string { return l.path("handoff.md") }

// Handoffs keeps every handoff.
func (l Layout) Handoffs() string { return l.path("handoffs") }

// AgentSettings is the directory of an agent's generated CLI settings.
func (l Layout) AgentSettings(agent string) string { return l.path("agents", agent) }

// HookSpools is the directory of hook messages spooled while no supervisor listened.
func (l Layout) HookSpools() string { return l.path("hooks") }

// HookSpool is one agent's spool file.
func (l Layout) HookSpool(agent string) (string, error) {
	if !oneElement(agent) {
		return "", fmt.Errorf("agent name %q cannot name a spool file", agent)
	}
	return l.path("hooks", agent+".spool.jsonl"), nil
}

// Worktrees is the directory of the tasks' git worktrees.
func (l Layout) Worktrees() string { return l.path("worktrees") }

// Worktree is a task's git worktree (DESIGN §5: worktrees/{task}/). A task
// id that is not one path element is refused: it would name a directory
// outside worktrees/, which `warden clean` then removes.
func (l Layout) Worktree(task string) (string, error) {
	if !oneElement(task) {
		return "", fmt.Errorf("task id %q cannot name a worktree directory", task)
	}
	return l.path("worktrees", task), nil
}

// Land is the worktree of the team's integration branch
// (warden/{team}/landed), which warden land builds.
func (l Layout) Land() string { return l.path("land") }

// LandRecord is what the team's land handed to agents and left for a
// person, and its last verified head (land.Record).
func (l Layout) LandRecord() string { return l.path("land.json") }

// oneElement reports whether name is a single, ordinary path element.
func oneElement(name string) bool {
	return name != "" && name != "." && name != ".." && filepath.Base(name) == name
}

// maxSunPath is the longest socket path Linux accepts (sun_path is 108
// bytes including the terminating NUL).
const maxSunPath = 107

// HookSocket is where the team's hook socket lives: STATE/hooks.sock when
// that fits in sun_path, else $XDG_RUNTIME_DIR (or the temp dir)
// /warden-UID/HASH.sock, HASH being the first 16 hex digits of the SHA-256
// of the absolute state dir.
func (l Layout) HookSocket() string { return l.socket("hooks.sock", ".sock") }

// ControlSocket is where the running team takes commands (warden ps,
// attach, send, …): STATE/control.sock, or, when that path is too long for a
// socket, HASH.control.sock beside the hook socket's fallback.
func (l Layout) ControlSocket() string { return l.socket("control.sock", ".control.sock") }

// HolderSocket is where the team's holder (holder = true: `warden hold`)
// listens: STATE/holder.sock, or, when that path is too long for a socket,
// HASH.holder.sock beside the hook socket's fallback.
func (l Layout) HolderSocket() string { return l.socket("holder.sock", ".holder.sock") }

// AppSocket is where a Codex agent's app-server listens (docs/agent-clis.md,
// "Codex's app-server"): STATE/agents/NAME/app.sock, or, when that path is
// too long for a socket, HASH.NAME.app.sock beside the hook socket's
// fallback (made private by PrepareAppSocket).
func (l Layout) AppSocket(agent string) string {
	return l.socket(filepath.Join("agents", agent, "app.sock"), "."+agent+".app.sock")
}

// PrepareAppSocket makes sure an agent's app-server socket can be warden's
// alone, as PrepareSockets does for the team's.
func (l Layout) PrepareAppSocket(agent string) error {
	if dir := filepath.Dir(l.AppSocket(agent)); dir != l.AgentSettings(agent) && dir != filepath.Join(l.abs(), "agents", agent) {
		return unixsock.PrivateDir(dir)
	}
	return nil
}

// socket is STATE/name when it fits in sun_path, else the short fallback
// $XDG_RUNTIME_DIR (or the temp dir)/warden-UID/HASH+suffix.
func (l Layout) socket(name, suffix string) string {
	abs := l.abs()
	if p := filepath.Join(abs, name); len(p) <= maxSunPath {
		return p
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(fallbackSocketDir(), hex.EncodeToString(sum[:8])+suffix)
}

func (l Layout) abs() string {
	abs, err := filepath.Abs(l.Root)
	if err != nil {
		return l.Root
	}
	return abs
}

// fallbackSocketDir is $XDG_RUNTIME_DIR (or the temp dir, or /tmp: a
// short one)/warden-UID.
func fallbackSocketDir() string {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" || len(base) > 60 {
		base = os.TempDir()
	}
	if len(base) > 60 {
		base = "/tmp"
	}
	return filepath.Join(base, "warden-"+strconv.Itoa(os.Getuid()))
}

// PrepareSockets makes sure the team's sockets can be warden's alone
// before the team starts: when a socket path is too long for the state dir
// and moves to the short fallback directory, that directory is made fresh
// (0700) or taken only when it is a private directory of ours (see
// unixsock.PrivateDir) — never one another user made first or can write
// to, where they could listen in warden's place and receive the agents'
// hook answers and the text of warden send. A directory that fails is an
// error that says what to do.
func (l Layout) PrepareSockets() error {
	for _, p := range []string{l.HookSocket(), l.ControlSocket(), l.HolderSocket()} {
		dir := filepath.Dir(p)
		if dir == l.abs() {
			continue // in the state dir, which has its own checks
		}
		if err := unixsock.PrivateDir(dir); err != nil {
			return fmt.Errorf("the state dir's path is too long for a socket, so its sockets go to %s, which warden will not use: %w "+
				"(set XDG_RUNTIME_DIR to a private directory of yours, or use a shorter state_dir; "+
				"if %s is yours, remove it and warden makes it afresh)", dir, err, dir)
		}
	}
	return nil
}
