//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
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

// notMet reports an answer lost or doubled: issue 36's figure is not met
// yet (docs/design-holder.md, not done yet), so it fails the test only
// with WARDEN_KILL_STRICT=1; without, it is logged and counted.
func (d *killDriver) notMet(format string, a ...any) {
	t := d.t
	t.Helper()
	d.missed++
	if os.Getenv("WARDEN_KILL_STRICT") == "1" {
		t.Errorf(format, a...)
		return
	}
	t.Logf("NOT MET YET: "+format, a...)
}

// killTUITask reports whether task is a TUI's (t1, t2: T3, T4).
func killTUITask(task string) bool { return task == "T3" || task == "T4" }

// answer is one answer of the log: when it began and ended (zero: cut off).
type answer struct {
	task       string
	begin, end time.Time
}

// killFigures is what check found.
type killFigures struct {
	answers, cut, lost, lostTUI, doubled, unknown, unannounced, unamended, announcedTwice int
	restarts                                                                              map[string]int // fresh sessions after the first, by cause
	survivors                                                                             int
}

func (f killFigures) String() string {
	var causes []string
	for c, n := range f.restarts {
		causes = append(causes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(causes)
	return fmt.Sprintf("%d answers, %d lost (plain), %d lost (TUI), %d doubled, %d cut off by the final stop, %d records of no answer, "+
		"%d recorded but not announced, %d saved without their late lines, %d announced twice; fresh sessions: [%s]; %d survivors",
		f.answers, f.lost, f.lostTUI, f.doubled, f.cut, f.unknown, f.unannounced, f.unamended, f.announcedTwice, strings.Join(causes, ", "), f.survivors)
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
	d.events.poll()
	pids := map[string]int{} // session_id → pid
	for _, e := range d.events.all {
		if e.Event == "agent_started" {
			pids[e.SessionID] = e.Pid
		}
	}
	records := map[string][]string{} // answer id → checkpoint ids
	files, _ := filepath.Glob(filepath.Join(d.state, "checkpoints", "history", "*", "*.json"))
	for _, p := range files {
		var cp struct {
			ID        string            `json:"checkpoint_id"`
			Trigger   string            `json:"trigger"`
			SessionID string            `json:"session_id"`
			Completed []string          `json:"completed"`
			Notes     string            `json:"notes"`
			Progress  int               `json:"progress_percent"`
			Extra     map[string]string `json:"extra"`
		}
		b, _ := os.ReadFile(p)
		if json.Unmarshal(b, &cp) != nil {
			t.Errorf("a record that does not parse: %s", p)
			continue
		}
		if cp.Trigger == protocol.TriggerDispatch {
			continue // warden's own (a session starts from the last record, its fields copied): no answer
		}
		id := cp.Extra[fakeagent.AnswerKey]
		if id == "" {
			// Saved before its late lines came (the Answer line among
			// them) and not amended: a warden killed in between. Which
			// answer it is, its session's pid and its count say (a
			// worker's "steps 1 to N", a TUI's "answer number N" or its
			// progress).
			n := 0
			if len(cp.Completed) > 0 {
				fmt.Sscanf(cp.Completed[len(cp.Completed)-1], "steps 1 to %d", &n)
			}
			if n == 0 {
				fmt.Sscanf(cp.Notes, "answer number %d", &n)
			}
			if n == 0 && cp.Progress < 100 {
				n = cp.Progress / 10 // a TUI's: 10 a answer, the notes late too
			}
			f.unamended++
			if n == 0 { // a TUI's at 100 %, from its tenth answer on: which one, nothing says
				d.notMet("record %s saved without its late lines, at %d %%: which answer it is, nothing in it says", cp.ID, cp.Progress)
				continue
			}
			id = fmt.Sprintf("%d.%d", pids[cp.SessionID], n)
		}
		records[id] = append(records[id], cp.ID)
	}
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
		case n == 0 && killTUITask(a.task):
			f.lostTUI++
			d.notMet("answer %s of a TUI (%s, written %s) lost: no record", id, a.task, d.during(a.begin))
		case n == 0:
			f.lost++
			d.notMet("answer %s (%s, written %s) lost: no record", id, a.task, d.during(a.begin))
		case n > 1:
			f.doubled++
			d.notMet("answer %s (%s, written %s) recorded %d times: %v", id, a.task, d.during(a.begin), n, records[id])
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
	if !d.final.IsZero() && !when.Before(d.final) {
		return "in the final run"
	}
	for i := len(d.moments) - 1; i >= 0; i-- {
		if m := d.moments[i]; !when.Before(m.start) {
			after := ""
			if when.After(m.kill) {
				after = ", after its kill"
			}
			return fmt.Sprintf("in moment %d (%s, killed %v after its start%s)", i, m.kind, m.kill.Sub(m.start).Round(time.Millisecond), after)
		}
	}
	return "before the first run"
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
