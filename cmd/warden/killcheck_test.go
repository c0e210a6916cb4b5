//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
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

// answer is one answer of the log: when it began and ended (zero: cut off).
type answer struct {
	task       string
	begin, end time.Time
}

// killFigures is what check found.
type killFigures struct {
	answers, cut, lost, doubled, unknown, unannounced, announcedTwice int
	restarts                                                          map[string]int // fresh sessions after the first, by cause
	survivors                                                         int
}

func (f killFigures) String() string {
	var causes []string
	for c, n := range f.restarts {
		causes = append(causes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(causes)
	return fmt.Sprintf("%d answers, %d lost, %d doubled, %d cut off by the final stop, %d records of no answer, "+
		"%d recorded but not announced, %d announced twice; fresh sessions: [%s]; %d survivors",
		f.answers, f.lost, f.doubled, f.cut, f.unknown, f.unannounced, f.announcedTwice, strings.Join(causes, ", "), f.survivors)
}

// check compares the answer log with the checkpoint history and the
// events, counts the sessions started after the first run's, and looks for
// anything left.
func (d *killDriver) check() killFigures {
	t := d.t
	f := killFigures{restarts: map[string]int{}}
	log, _ := os.ReadFile(d.truth.path)
	truth := map[string]*answer{}
	for _, l := range strings.Split(string(log), "\n") {
		w := strings.Fields(l)
		if len(w) != 4 {
			continue
		}
		ns, _ := strconv.ParseInt(w[3], 10, 64)
		a := truth[w[1]]
		if a == nil {
			a = &answer{task: w[2]}
			truth[w[1]] = a
		}
		if w[0] == "begin" {
			a.begin = time.Unix(0, ns)
		} else {
			a.end = time.Unix(0, ns)
		}
	}
	records := map[string][]string{} // answer id → checkpoint ids
	files, _ := filepath.Glob(filepath.Join(d.state, "checkpoints", "history", "*", "*.json"))
	for _, p := range files {
		var cp struct {
			ID      string            `json:"checkpoint_id"`
			Trigger string            `json:"trigger"`
			Extra   map[string]string `json:"extra"`
		}
		b, _ := os.ReadFile(p)
		if json.Unmarshal(b, &cp) != nil {
			t.Errorf("a record that does not parse: %s", p)
			continue
		}
		// A dispatch record is warden's own (a session starts from the
		// last record, its fields copied): no answer.
		if id := cp.Extra[fakeagent.AnswerKey]; id != "" && cp.Trigger != protocol.TriggerDispatch {
			records[id] = append(records[id], cp.ID)
		}
	}
	d.events.poll()
	announced := map[string]int{}
	for _, e := range d.events.all {
		if e.Event == "checkpoint_received" {
			announced[e.CheckpointID]++
		}
	}
	for id, a := range truth {
		n := len(records[id])
		switch {
		case a.end.IsZero():
			f.cut++
			if n > 1 {
				t.Errorf("answer %s (%s), cut off, recorded %d times: %v", id, a.task, n, records[id])
			}
			continue
		case n == 0:
			f.lost++
			t.Errorf("answer %s (%s, written %s) lost: no record", id, a.task, d.during(a.begin))
		case n > 1:
			f.doubled++
			t.Errorf("answer %s (%s, written %s) recorded %d times: %v", id, a.task, d.during(a.begin), n, records[id])
		}
		f.answers++
	}
	for id, cps := range records {
		if truth[id] == nil {
			f.unknown++
			t.Errorf("records %v carry answer %s, which no agent wrote", cps, id)
		}
		for _, cp := range cps {
			switch announced[cp] {
			case 0:
				f.unannounced++
			case 1:
			default:
				f.announcedTwice++
				t.Errorf("record %s (answer %s) announced %d times", cp, id, announced[cp])
			}
		}
	}
	d.countSessions(&f)
	f.survivors = d.survivors()
	return f
}

// during names the moment whose run was on at when (the run it began in).
func (d *killDriver) during(when time.Time) string {
	for i := len(d.moments) - 1; i >= 0; i-- {
		if m := d.moments[i]; !when.Before(m.start) {
			after := ""
			if when.After(m.kill) {
				after = ", after its kill"
			}
			return fmt.Sprintf("in moment %d (%s, killed %v after its start%s)", i, m.kind, m.kill.Sub(m.start).Round(time.Millisecond), after)
		}
	}
	return "in the final run"
}

// countSessions counts the sessions started (not taken back) after the
// first run's, by cause: a team checkpoint's rehydration, a restart (its
// reason), or started anew (a session the dead warden had not yet named in
// state.json, or a run killed before it started any).
func (d *killDriver) countSessions(f *killFigures) {
	first := map[string]bool{}
	cause := map[string]string{}
	for _, e := range d.events.all {
		switch e.Event {
		case "team_rehydrated":
			for _, a := range killAgents {
				cause[a] = "rehydrated"
			}
		case "agent_restarted":
			cause[e.Agent] = "restarted (" + e.Reason + ")"
		case "agent_force_terminated":
			if strings.Contains(e.Reason, "held for a dead supervisor") {
				cause[e.Agent] = "not taken back"
			}
		case "agent_started":
			if e.TakenBack {
				continue
			}
			if !first[e.Agent] {
				first[e.Agent] = true
				continue
			}
			c := cause[e.Agent]
			if c == "" {
				c = "started anew"
			}
			f.restarts[c]++
			delete(cause, e.Agent)
		}
	}
}

// survivors waits up to 5 s for every agent, holder and zombie of the
// run to be gone; what is left is counted, named and killed.
func (d *killDriver) survivors() int {
	groups := map[int]bool{}
	for p := range d.agents {
		groups[p] = true
	}
	for p := range d.holders {
		groups[p] = true
	}
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left = left[:0]
		for _, p := range proctest.Leftovers() {
			left = append(left, p.String())
		}
		for _, p := range proctest.Zombies(groups) {
			left = append(left, "zombie "+p.String())
		}
		for p := range groups {
			if !proctest.GroupGone(p) {
				left = append(left, fmt.Sprintf("process group %d", p))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		d.t.Errorf("seed %d: %d left after warden stop:\n%s", d.seed, len(left), strings.Join(left, "\n"))
		for p := range groups {
			syscall.Kill(-p, syscall.SIGKILL)
		}
	}
	return len(left)
}
