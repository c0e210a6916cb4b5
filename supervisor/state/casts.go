package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/asciicast"
)

// castExt ends every recording's name: logs/{agent}-{session}.cast.
const castExt = ".cast"

// AgentCast is the asciicast recording of one session of an agent.
func (l Layout) AgentCast(agent, session string) string {
	return l.path("logs", agent+"-"+session+castExt)
}

// Cast is one session's recording on disk.
type Cast struct {
	Agent, Session string
	Path           string
	Header         asciicast.Header // zero when it cannot be read
	HeaderErr      error
	Size           int64
	ModTime        time.Time // its last write
}

// Started is when the session started: the header's time, or the file's
// last write when the header cannot be read.
func (c Cast) Started() time.Time {
	if c.HeaderErr != nil {
		return c.ModTime
	}
	return c.Header.Start()
}

// castSession returns the session id of a recording's file name of agent:
// "{agent}-{id}.cast", the id holding neither '-' nor '.' (so that agent
// "a" never claims the recordings of agent "a-b").
func castSession(agent, name string) (string, bool) {
	id, ok := strings.CutPrefix(name, agent+"-")
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, castExt)
	if !ok || id == "" || strings.ContainsAny(id, "-./") {
		return "", false
	}
	return id, true
}

// AgentCasts lists the recordings of agent, oldest first (by their start,
// then their last write). Only regular files count; none is an empty list.
func (l Layout) AgentCasts(agent string) ([]Cast, error) {
	if !oneElement(agent) {
		return nil, fmt.Errorf("agent name %q cannot name a recording", agent)
	}
	entries, err := os.ReadDir(l.Logs())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list recordings: %w", err)
	}
	var out []Cast
	for _, e := range entries {
		id, ok := castSession(agent, e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		c := Cast{Agent: agent, Session: id, Path: l.AgentCast(agent, id), Size: fi.Size(), ModTime: fi.ModTime()}
		c.Header, c.HeaderErr = asciicast.ReadHeader(c.Path)
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Started().Equal(b.Started()) {
			return a.Started().Before(b.Started())
		}
		if !a.ModTime.Equal(b.ModTime) {
			return a.ModTime.Before(b.ModTime)
		}
		return a.Session < b.Session
	})
	return out, nil
}

// PruneCasts removes agent's oldest recordings beyond the newest keep, and
// returns how many it removed.
func (l Layout) PruneCasts(agent string, keep int) (int, error) {
	casts, err := l.AgentCasts(agent)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, c := range casts[:max(len(casts)-keep, 0)] {
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove old recording: %w", err)
		}
		removed++
	}
	return removed, nil
}

// FindCast is agent's recording of session (a unique prefix of its id is
// enough), or with session "" its newest.
func (l Layout) FindCast(agent, session string) (Cast, error) {
	casts, err := l.AgentCasts(agent)
	if err != nil {
		return Cast{}, err
	}
	if len(casts) == 0 {
		return Cast{}, fmt.Errorf("no recording of agent %q in %s", agent, l.Logs())
	}
	if session == "" {
		return casts[len(casts)-1], nil
	}
	var found []Cast
	for _, c := range casts {
		if c.Session == session {
			return c, nil
		}
		if strings.HasPrefix(c.Session, session) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return Cast{}, fmt.Errorf("agent %q has no recorded session %q", agent, session)
	case 1:
		return found[0], nil
	}
	return Cast{}, fmt.Errorf("session %q of agent %q is ambiguous: %d recordings start with it", session, agent, len(found))
}
