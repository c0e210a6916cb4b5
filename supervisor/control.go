package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/atomicfile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/state"
)

// Status is a team's state as `warden status` shows it, read from its state
// dir whether a warden runs it or not. Reading it never writes.
type Status struct {
	*state.Snapshot
	StateDir    string                          `json:"state_dir"`
	Checkpoints map[string]*protocol.Checkpoint `json:"checkpoints"`
}

// ReadStatus reads the state dir at root: the snapshot (Running only while
// a warden holds the team's lock) and, with checkpoints, the latest
// checkpoint files as they are on disk.
func ReadStatus(logger hclog.Logger, root string, checkpoints bool) (*Status, error) {
	snap, err := state.ReadSnapshot(root)
	if err != nil {
		return nil, err
	}
	snap.Running = snap.Running && state.LockHeld(root)
	st := &Status{Snapshot: snap, StateDir: root}
	if checkpoints {
		if st.Checkpoints, err = state.ReadCheckpoints(logger, root); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// RequestCheckpoint asks the team whose state dir is root for a team
// checkpoint by creating its signal file, and reports whether a warden runs
// the team now (else the checkpoint runs when one starts). The signal file
// must be inside the state dir; signalFile "" takes the one state.json
// names, or the default.
func RequestCheckpoint(root, signalFile, defaultName string) (path string, running bool, err error) {
	if signalFile == "" {
		signalFile = filepath.Join(root, defaultName)
		if snap, err := state.ReadSnapshot(root); err == nil && snap.SignalFile != "" {
			signalFile = snap.SignalFile
		}
	}
	if !inside(root, signalFile) {
		return "", false, fmt.Errorf("signal file %s is not inside the state dir %s", signalFile, root)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", false, fmt.Errorf("checkpoint: %w", err)
	}
	note := state.SignalNote(protocol.CauseManual, fmt.Sprintf("asked for with warden checkpoint (pid %d)", os.Getpid()))
	if err := atomicfile.Write(signalFile, note, 0o600); err != nil {
		return "", false, fmt.Errorf("checkpoint: %w", err)
	}
	return signalFile, state.LockHeld(root), nil
}

// inside reports whether path lies inside dir (both made absolute).
func inside(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// OpenWrapLog opens warden's own log in the state dir at root (warden wrap:
// the terminal belongs to the agent).
func OpenWrapLog(root string) (*os.File, error) {
	d, err := state.Open(root)
	if err != nil {
		return nil, err
	}
	return state.OpenPrivate(d.WardenLog())
}
