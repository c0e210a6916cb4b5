package land

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/wardenhq/warden/internal/safefile"
)

// Record is what a team's land keeps in its state dir (land.json) across
// warden's deaths and carried-on runs: the land tasks handed to land_by,
// the stop left for a person, and the integration branch's last verified
// head (Options.Good).
type Record struct {
	Good  string `json:"good,omitempty"`
	Hands []Hand `json:"hands,omitempty"`
	// Left is the stop left for a person after land_attempts land tasks
	// (nil: none).
	Left *Wait `json:"left,omitempty"`
}

// Hand is one land task handed to land_by.
type Hand struct {
	ID      string   `json:"id"`
	Agent   string   `json:"agent"`
	Attempt int      `json:"attempt"`
	Branch  string   `json:"branch"`
	Paths   []string `json:"paths,omitempty"`
	Prompt  string   `json:"prompt"`
	Stop    Wait     `json:"stop"`
}

// Attempts is how many land tasks were handed for the stop at what.
func (r Record) Attempts(what string) int {
	n := 0
	for _, h := range r.Hands {
		if h.Stop.Task == what {
			n++
		}
	}
	return n
}

// ReadRecord reads land.json at path; none there is an empty record.
func ReadRecord(path string) (Record, error) {
	var r Record
	b, err := safefile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("the land's record: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("the land's record %s: %w", path, err)
	}
	return r, nil
}

// Write writes the record to path (0600, replaced whole), inside the state
// dir root.
func (r Record) Write(root, path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("the land's record: %w", err)
	}
	if err := safefile.WriteAtomic(root, path, append(b, '\n')); err != nil {
		return fmt.Errorf("the land's record %s: %w", filepath.Base(path), err)
	}
	return nil
}

// Resolutions are the land tasks whose work the next land merges first:
// for each stop, its newest land task, when complete says it completed (a
// newer one starts from an older one's branch; an older one is never
// merged on its own again).
func (r Record) Resolutions(complete func(id string) bool) []Resolution {
	newest := map[string]int{}
	for i, h := range r.Hands {
		newest[h.Stop.Task] = i
	}
	var out []Resolution
	for i, h := range r.Hands {
		if newest[h.Stop.Task] == i && complete(h.ID) {
			out = append(out, Resolution{ID: h.ID, Lands: h.Stop.Task, Branch: h.Branch, Paths: h.Paths})
		}
	}
	return out
}
