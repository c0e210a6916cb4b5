//go:build !linux

package signalfile

import "errors"

// guard is Linux-only (its own inotify instance with self events): elsewhere
// the watcher keeps its safety-net poll.
type guard struct{}

type guardEvent struct{}

func newGuard() (*guard, error) { return nil, errors.New("no directory guard on this platform") }

func (g *guard) set([]string) error        { return errors.New("no directory guard") }
func (g *guard) moved(guardEvent) bool     { return false }
func (g *guard) events() <-chan guardEvent { return nil }
func (g *guard) close()                    {}
