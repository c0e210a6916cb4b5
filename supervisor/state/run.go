package state

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// How a run ended, as state.json's "ended" says (DESIGN §5). Empty while it
// runs, and when its supervisor died.
const (
	// EndedFinished: no task could make progress any more (every one
	// complete or failed, or blocked behind one that failed). The next
	// `warden run` starts a new run.
	EndedFinished = "finished"
	// EndedStopped: stopped with tasks open (a person, stop_at or
	// max_runtime, after_team_checkpoint = "exit"). The next `warden run`
	// carries it on.
	EndedStopped = "stopped"
)

// NewRunID makes a run's id: its UTC start time, to the second, and 6 random
// hex digits ("20261125T211547Z-3f9a0c"): sortable, and never the same twice.
func NewRunID(now time.Time) string {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("run id: %v", err)) // crypto/rand never fails on Linux
	}
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// TaskSpec is what state.json keeps of a task's definition in the team
// file, so that a run carried on can say what changed in the file since.
type TaskSpec struct {
	Title     string   `json:"title,omitempty"`
	Prompt    string   `json:"prompt_sha256"` // the prompt's digest: state.json stays small
	Agent     string   `json:"agent,omitempty"`
	BlockedBy []string `json:"blocked_by,omitempty"`
	Verify    []string `json:"verify,omitempty"`
}

// SpecOf is task's spec.
func SpecOf(t config.Task) TaskSpec {
	sum := sha256.Sum256([]byte(t.Prompt))
	return TaskSpec{Title: t.Title, Prompt: hex.EncodeToString(sum[:8]), Agent: t.Agent, BlockedBy: t.BlockedBy, Verify: t.Verify}
}

// Differences says what differs between the task specs of a run (was) and
// the team file's tasks now, a line each, in the team file's order (tasks
// removed last).
func Differences(was map[string]TaskSpec, now []config.Task) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range now {
		seen[t.ID] = true
		old, ok := was[t.ID]
		if !ok {
			out = append(out, fmt.Sprintf("task %s is new in the team file: it starts from its prompt", t.ID))
			continue
		}
		if fields := changedFields(old, SpecOf(t)); len(fields) > 0 {
			out = append(out, fmt.Sprintf("task %s changed in the team file (%s): it carries on from its checkpoint as the file now says",
				t.ID, strings.Join(fields, ", ")))
		}
	}
	var gone []string
	for id := range was {
		if !seen[id] {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		out = append(out, fmt.Sprintf("task %s is no longer in the team file: its records stay as history", id))
	}
	return out
}

func changedFields(a, b TaskSpec) []string {
	var f []string
	if a.Title != b.Title {
		f = append(f, "title")
	}
	if a.Prompt != b.Prompt {
		f = append(f, "prompt")
	}
	if a.Agent != b.Agent {
		f = append(f, "agent")
	}
	if !slices.Equal(a.BlockedBy, b.BlockedBy) {
		f = append(f, "blocked_by")
	}
	if !slices.Equal(a.Verify, b.Verify) {
		f = append(f, "verify")
	}
	return f
}
