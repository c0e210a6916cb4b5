//go:build !linux

package runner

import "time"

// NewTag returns a fresh runner tag.
func NewTag() string { return newTag() }

// KillTagged is unsupported here: nothing is found.
func KillTagged(string, int, time.Duration) ([]int, error) { return nil, errUnsupported }
