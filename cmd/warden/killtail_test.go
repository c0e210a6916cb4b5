//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
)

// tail reads a file of lines as it grows, whole lines only.
type tail struct {
	path string
	off  int64
	rest []byte
}

func (t *tail) lines() []string {
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	f.Seek(t.off, io.SeekStart)
	b, _ := io.ReadAll(f)
	t.off += int64(len(b))
	t.rest = append(t.rest, b...)
	i := bytes.LastIndexByte(t.rest, '\n')
	if i < 0 {
		return nil
	}
	out := strings.Split(string(t.rest[:i]), "\n")
	t.rest = append([]byte{}, t.rest[i+1:]...)
	return out
}

// eventTail is events.jsonl as it grows.
type eventTail struct {
	tail
	all []heldEvent
}

func (e *eventTail) poll() {
	for _, l := range e.lines() {
		var ev heldEvent
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Event != "" {
			e.all = append(e.all, ev)
		}
	}
}

func (e *eventTail) len() int { e.poll(); return len(e.all) }

func (e *eventTail) count(from int, event string) int { return e.countOf(from, event, "") }

// countOf counts event since from, of agent (any when "").
func (e *eventTail) countOf(from int, event, agent string) int {
	n := 0
	for _, ev := range e.all[from:] {
		if ev.Event == event && (agent == "" || ev.Agent == agent) {
			n++
		}
	}
	return n
}

// truthTail is the agents' answer log as it grows: the answers begun and
// not ended, and how many ended.
type truthTail struct {
	tail
	open map[string]bool
	ends int
}

func (t *truthTail) poll() {
	for _, l := range t.lines() {
		f := strings.Fields(l)
		if len(f) != 4 {
			continue
		}
		switch f[0] {
		case "begin":
			t.open[f[1]] = true
		case "end":
			delete(t.open, f[1])
			t.ends++
		}
	}
}
