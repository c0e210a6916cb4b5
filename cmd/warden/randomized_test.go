//go:build e2e

package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// TestRandomizedRunsNeverLie drives seeded sequences of what a night's
// operator (or a scheduler) does to a state dir — fresh runs, reruns,
// kill -9 of warden at a random moment, SIGTERM, --resume, --resume --from,
// a latest record torn or deleted — against real warden processes and fake
// agents that complete after a few answers, and checks after every warden
// step that:
//   - exit 0 only when every task of the run is complete;
//   - no task is complete that its agent did not complete in the current
//     run (a complete record of that run, from the agent, in the history);
//   - no record an agent gave in the current run is lost (every
//     CHECKPOINT line printed in the run has its record in the history,
//     and a session that carries a task on is told at least the progress
//     the run last recorded for it);
//   - no process survives a step that ended on its own or by a signal
//     warden could act on.
//
// WARDEN_RANDOM_SEQUENCES (default 8, what CI runs) and WARDEN_RANDOM_SEED
// (default 1) set the size; docs/testing.md gives the figure of a longer run.
func TestRandomizedRunsNeverLie(t *testing.T) {
	defer proctest.AssertNone(t)
	n := envInt(t, "WARDEN_RANDOM_SEQUENCES", 8)
	seed := uint64(envInt(t, "WARDEN_RANDOM_SEED", 1))
	steps := 0
	for i := range n {
		ok := t.Run(fmt.Sprintf("seed%d-seq%d", seed, i), func(t *testing.T) {
			s := &sequence{t: t, rng: rand.New(rand.NewPCG(seed, uint64(i))), printed: map[string]map[string]int{},
				lines: map[string][]string{}}
			steps += s.run()
		})
		if !ok {
			break
		}
	}
	t.Logf("%d sequences, %d warden steps checked (seed %d)", n, steps, seed)
}

func envInt(t *testing.T, key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", key, v)
	}
	return n
}

// sequence is one seeded sequence of steps on one state dir.
type sequence struct {
	t     *testing.T
	rng   *rand.Rand
	team  string
	state string
	// printed[run][task] is the highest progress a CHECKPOINT line of that
	// run showed for the task; lines[run] are those lines.
	printed map[string]map[string]int
	lines   map[string][]string
	killed  bool // the last warden step was a kill -9: its agents may linger until the next
}

// run plays 3–6 random steps and a last --resume to the end; it returns how
// many warden steps it checked.
func (s *sequence) run() int {
	s.team = s.writeTeam()
	s.state = filepath.Join(filepath.Dir(s.team), ".warden")
	checked := 0
	for range 3 + s.rng.IntN(4) {
		switch op := s.rng.IntN(10); {
		case op < 2:
			s.damage()
		case op < 4:
			checked += s.warden("run")
		case op < 6:
			checked += s.warden("run", "--resume")
		case op < 7:
			checked += s.warden("run", "--fresh")
		default:
			if id := s.pickRecord(); id != "" {
				checked += s.warden("run", "--resume", "--from", id)
			} else {
				checked += s.warden("run", "--resume")
			}
		}
	}
	checked += s.wardenTo("end", 0, "run", "--resume")
	return checked
}

// writeTeam writes a team of two fake workers and three tasks (T3 after
// T1; T2 with a verify command) with fast timers and a history that keeps
// every record.
func (s *sequence) writeTeam() string {
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	b.WriteString("name = \"random\"\ncheckpoint_interval = \"100ms\"\ncheckpoint_timeout = \"2s\"\nshutdown_timeout = \"1s\"\n")
	b.WriteString("[retention]\nkeep_last = 100000\n")
	for _, w := range []string{"w1", "w2"} {
		mode := fmt.Sprintf("worker:steps=%d", 2+s.rng.IntN(3))
		argv := fakeagent.Command(mode)
		fmt.Fprintf(&b, "[[agent]]\nname = %q\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			w, argv[0], argv[1], fakeagent.EnvMode, mode, fakeagent.EnvOwner, owner)
	}
	b.WriteString("[[task]]\nid = \"T1\"\nprompt = \"Do task 1.\"\n")
	b.WriteString("[[task]]\nid = \"T2\"\nprompt = \"Do task 2.\"\nverify = [\"true\"]\n")
	b.WriteString("[[task]]\nid = \"T3\"\nprompt = \"Do task 3.\"\nblocked_by = [\"T1\"]\n")
	p := filepath.Join(s.t.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// damage tears or deletes one latest checkpoint file, as a crash of some
// other writer, a full disk or a careless hand would.
func (s *sequence) damage() {
	files, _ := filepath.Glob(filepath.Join(s.state, "checkpoints", "w*-T*.json"))
	var latest []string
	for _, f := range files {
		if base := filepath.Base(f); !strings.Contains(base, "_") && !strings.HasSuffix(base, "-complete.json") {
			latest = append(latest, f)
		}
	}
	if len(latest) == 0 {
		return
	}
	f := latest[s.rng.IntN(len(latest))]
	if s.rng.IntN(2) == 0 {
		s.t.Logf("step: tear %s", filepath.Base(f))
		os.WriteFile(f, []byte(`{"checkpoint_id": "torn", "progress_perc`), 0o600)
	} else {
		s.t.Logf("step: delete %s", filepath.Base(f))
		os.Remove(f)
	}
}

// pickRecord is a random history record that is not a completion (the
// records `warden checkpoints` lists), or "".
func (s *sequence) pickRecord() string {
	h, _ := state.ReadHistory(s.state, "")
	var ids []string
	for _, e := range h {
		if e.Status != "complete" {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[s.rng.IntN(len(ids))]
}

// warden runs one warden step that ends as chance says: on its own, by
// kill -9, or by SIGTERM, after a random time.
func (s *sequence) warden(args ...string) int {
	switch s.rng.IntN(3) {
	case 0:
		return s.wardenTo("end", 0, args...)
	case 1:
		return s.wardenTo("kill", time.Duration(50+s.rng.IntN(2500))*time.Millisecond, args...)
	}
	return s.wardenTo("term", time.Duration(50+s.rng.IntN(2500))*time.Millisecond, args...)
}

var (
	checkpointLine = regexp.MustCompile(`^CHECKPOINT: (T\d) - ([a-z-]+) \((\d+)%\)  \[[A-Za-z0-9._-]+ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]$`)
	resumedLine    = regexp.MustCompile(`RESUME-SEEN: You are resuming task (T\d) \(attempt \d+\)\. The previous session reached (\d+)%`)
)

// wardenTo runs warden with args to its end (how: "end"), or kills it
// after: "kill" (SIGKILL) or "term" (SIGTERM), then checks the invariants.
func (s *sequence) wardenTo(how string, after time.Duration, args ...string) int {
	t := s.t
	t.Logf("step: warden %s (%s %s)", strings.Join(args, " "), how, after)
	before := s.runNow()
	logSizes := s.logSizes()
	cmd, out := runWarden(t, append(args, s.team)...)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	switch how {
	case "end":
		select {
		case err = <-done:
		case <-time.After(90 * time.Second):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			t.Fatalf("warden %s did not end in 90 s:\n%s", strings.Join(args, " "), out.dump())
		}
	default:
		select {
		case err = <-done:
		case <-time.After(after):
			sig := syscall.SIGTERM
			if how == "kill" {
				sig = syscall.SIGKILL
			}
			cmd.Process.Signal(sig)
			err = <-done
		}
	}
	code := exitCode(err)
	// Died of the signal: SIGKILL, or a SIGTERM that came before warden's
	// handler was set (96 ms after the start on a loaded machine: the
	// process had not reached main), which ends it the same way.
	killed := how != "end" && code == -1
	snap, serr := state.ReadSnapshot(s.state)
	if killed && errors.Is(serr, os.ErrNotExist) {
		// Killed before its run began: it wrote no record (a run's records
		// come after state.json names it).
		if files, _ := filepath.Glob(filepath.Join(s.state, "checkpoints", "*.json")); len(files) > 0 {
			t.Fatalf("no state.json, but records: %v", files)
		}
		s.killed = true
		return 1
	}
	if serr != nil {
		t.Fatalf("after warden %s: %v\n%s", strings.Join(args, " "), serr, out.dump())
	}
	run := snap.RunID
	if run == "" {
		t.Fatalf("state.json names no run:\n%s", out.dump())
	}
	if code != 0 && code != 130 && !killed {
		t.Fatalf("warden %s: exit %d\n%s", strings.Join(args, " "), code, out.dump())
	}

	// exit 0 only when every task of the run is complete.
	if code == 0 {
		for _, ts := range snap.Tasks {
			if ts.State != queue.Complete {
				t.Fatalf("exit 0 with %s %s in run %s\n%s", ts.ID, ts.State, run, out.dump())
			}
		}
	}
	// No task complete that its agent did not complete in this run.
	hist, err := state.ReadHistory(s.state, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range snap.Tasks {
		if ts.State == queue.Complete && !completedIn(hist, run, ts.ID) {
			t.Fatalf("%s complete in run %s, but no agent of that run completed it\n%s", ts.ID, run, out.dump())
		}
	}
	// No record lost: the carried-on sessions were told at least what the
	// run had recorded; every CHECKPOINT line of the run is in the history.
	if run == before {
		s.checkResumes(run, logSizes, args, out)
	}
	if s.printed[run] == nil || (len(args) > 2 && args[2] == "--from") {
		s.printed[run] = map[string]int{} // after --from: the person chose to go back, what follows starts there
	}
	out.mu.Lock()
	for _, l := range out.all {
		if m := checkpointLine.FindStringSubmatch(l); m != nil {
			p, _ := strconv.Atoi(m[3])
			s.printed[run][m[1]] = max(s.printed[run][m[1]], p)
			s.lines[run] = append(s.lines[run], l)
		}
	}
	out.mu.Unlock()
	for _, l := range s.lines[run] {
		m := checkpointLine.FindStringSubmatch(l)
		p, _ := strconv.Atoi(m[3])
		if !inHistory(hist, run, m[1], m[2], p) {
			t.Fatalf("%q was printed in run %s but its record is not in the history", l, run)
		}
	}
	// No process survives a step warden could end itself.
	if !killed {
		if left := proctest.Leftovers(); len(left) > 0 {
			time.Sleep(500 * time.Millisecond) // a process group being reaped
			if left = proctest.Leftovers(); len(left) > 0 {
				t.Fatalf("left behind after warden %s: %v\n%s", strings.Join(args, " "), left, out.dump())
			}
		}
	}
	s.killed = killed
	return 1
}

// runNow is the run state.json names now ("" for none).
func (s *sequence) runNow() string {
	snap, err := state.ReadSnapshot(s.state)
	if err != nil {
		return ""
	}
	return snap.RunID
}

// logSizes is how long each agent's log is now.
func (s *sequence) logSizes() map[string]int64 {
	out := map[string]int64{}
	for _, w := range []string{"w1", "w2"} {
		if fi, err := os.Stat(filepath.Join(s.state, "logs", w+".log")); err == nil {
			out[w] = fi.Size()
		}
	}
	return out
}

// checkResumes checks that the first session of each task this step
// carried on was told at least the progress the run last printed for it.
func (s *sequence) checkResumes(run string, sizes map[string]int64, args []string, out *lines) {
	if len(args) > 2 && args[2] == "--from" {
		return // resumed from the record the person chose
	}
	seen := map[string]bool{}
	for _, w := range []string{"w1", "w2"} {
		b, _ := os.ReadFile(filepath.Join(s.state, "logs", w+".log"))
		if int64(len(b)) < sizes[w] {
			continue // rotated: nothing to compare
		}
		for _, m := range resumedLine.FindAllSubmatch(b[sizes[w]:], -1) {
			task := string(m[1])
			if seen[task] {
				continue
			}
			seen[task] = true
			p, _ := strconv.Atoi(string(m[2]))
			if want := s.printed[run][task]; p < want {
				s.t.Fatalf("run %s: %s carried on from %d%%, but the run had recorded %d%%\n%s", run, task, p, want, out.dump())
			}
		}
	}
}

// completedIn reports whether the history holds a complete record of task
// that an agent gave in run (not warden's own dispatch record).
func completedIn(hist []state.Entry, run, task string) bool {
	for _, e := range hist {
		if e.Run == run && e.Task == task && e.Status == "complete" && e.Trigger != "dispatch" {
			return true
		}
	}
	return false
}

// inHistory reports whether the history holds a record of run for task
// with that status and progress.
func inHistory(hist []state.Entry, run, task, status string, progress int) bool {
	for _, e := range hist {
		if e.Run == run && e.Task == task && e.Status == status && e.Progress == progress {
			return true
		}
	}
	return false
}
