package state

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/safefile"
)

// SignalNote is what warden writes into the signal file: why a team
// checkpoint is asked for (a protocol.Cause*) and the reason in words, so
// that the checkpoint's records and handoff say it truthfully.
func SignalNote(cause, reason string) []byte {
	return []byte(fmt.Sprintf("cause: %s\nreason: %s\n", cause, reason))
}

// ReadSignal reads the signal file at path: its cause and reason, or ok
// false when the file holds no note of warden's (a user's `touch`).
func ReadSignal(path string) (cause, reason string, ok bool) {
	b, err := safefile.ReadFile(path)
	if err != nil || len(b) > 4096 {
		return "", "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		switch k {
		case "cause":
			cause = strings.TrimSpace(v)
		case "reason":
			reason = strings.TrimSpace(v)
		}
	}
	return cause, reason, cause != ""
}

// WriteSignal creates the signal file at path, inside the state dir at root,
// holding note: never through a symbolic link on the way (a link at path
// itself is replaced, not followed), never outside root.
func WriteSignal(root, path string, note []byte) error {
	if err := safefile.WriteAtomic(root, path, note); err != nil {
		return fmt.Errorf("signal file: %w", err)
	}
	return nil
}
