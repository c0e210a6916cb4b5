package state

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wardenhq/warden/internal/safefile"
)

// Dir is an open state directory. It may hold secrets from agents'
// transcripts: the directory and its sub-directories are 0700, its files
// 0600, and nothing in it is followed through a symlink.
type Dir struct {
	Layout
	lock *os.File
}

// Open creates the state directory (0700) and its sub-directories, or checks
// an existing one: it must be a directory of this user that no one else may
// write to, either empty or a warden state dir already, and hold no
// symbolic link where warden keeps its files. It never changes the mode of
// a directory that is not warden's, and never follows a link out of it.
func Open(root string) (*Dir, error) {
	d := &Dir{Layout: NewLayout(root)}
	if err := safefile.PrepareStateDir(root); err != nil {
		return nil, err
	}
	if err := d.checkPlanted(); err != nil {
		return nil, err
	}
	for _, sub := range []string{d.Logs(), d.Checkpoints()} {
		if err := d.MkdirPrivate(sub); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// checkPlanted refuses a state dir with a symbolic link where warden keeps
// a file or a directory of its own (inside an agent's generated settings
// links to the user's own CLI settings are warden's; worktrees are git's).
func (d *Dir) checkPlanted() error {
	top := []string{"lock", "state.json", "events.jsonl", "STATUS.md", "handoff.md", "hooks.sock", "agents", "worktrees"}
	for _, sub := range []string{"agents", "worktrees"} {
		ents, _ := os.ReadDir(d.path(sub))
		for _, e := range ents {
			top = append(top, filepath.Join(sub, e.Name()))
		}
	}
	links, err := safefile.Symlinks(d.Root, top, []string{"logs", "checkpoints", "handoffs", "hooks"})
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	if len(links) > 0 {
		return safefile.SymlinkError(links[0])
	}
	return nil
}

// MkdirPrivate creates a 0700 directory inside the state dir (and those
// between), refusing a symbolic link or another user's directory on the way.
func (d *Dir) MkdirPrivate(p string) error { return safefile.MkdirAll(d.Root, p) }

// OpenPrivate opens a file inside the state dir at root for appending
// (created 0600, its directories 0700), never through a symbolic link.
func OpenPrivate(root, p string) (*os.File, error) { return safefile.OpenAppend(root, p) }
