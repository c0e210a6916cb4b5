//go:build !linux

package box

import (
	"errors"
	"os/exec"
)

// ScopeABI is the first Landlock ABI with scopes (Linux only).
const ScopeABI = 6

// ABI is 0: Landlock is Linux's.
func ABI() (int, error) { return 0, errors.New("Landlock is Linux's") }

// Available is false: Landlock is Linux's.
func Available() (bool, string) { return false, "Landlock is Linux's" }

// Scoped fails: Landlock is Linux's.
func Scoped(func() error) error { return errors.New("Landlock is Linux's") }

// Walls fails: the walls are Linux's.
func Walls(*exec.Cmd, WallSpec) error { return errors.New("the box's walls are Linux's") }

// WallsAvailable is false: the walls are Linux's.
func WallsAvailable() (bool, string) { return false, "the box's walls are Linux's" }
