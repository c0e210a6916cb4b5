//go:build e2e

package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// first is the first line a run printed.
func (l *lines) first() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return ""
	}
	return l.all[0]
}

// runToEnd runs warden with args and waits for it; it fails the test when
// the exit code is not want.
func runToEnd(t *testing.T, want int, args ...string) *lines {
	t.Helper()
	cmd, out := runWarden(t, args...)
	if err := cmd.Wait(); exitCode(err) != want {
		t.Fatalf("warden %s: exit %d, want %d\n%s", strings.Join(args, " "), exitCode(err), want, out.dump())
	}
	return out
}

var reached = regexp.MustCompile(`RESUME-SEEN: You are resuming task T1 \(attempt \d+\)\. The previous session reached (\d+)%`)

// lastResume is the progress the newest resumed session of w1 was told it
// had reached, or -1.
func lastResume(t *testing.T, team string) int {
	t.Helper()
	log, _ := os.ReadFile(filepath.Join(filepath.Dir(team), ".warden", "logs", "w1.log"))
	m := reached.FindAllSubmatch(log, -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(string(m[len(m)-1][1]))
	return n
}

// The nightly rerun: a team run to completion, run again in the same state
// dir, warden killed with the task at 30 %, then --resume. The resume
// carries on the second run from its own 30 % record — the first run's
// -complete archive completes nothing — and exits 0 only when the task
// really completed.
func TestNightlyRerunKilledMidTaskThenResumed(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=10")
	runToEnd(t, 0, "run", team)

	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (30%)", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !strings.HasPrefix(out.first(), "NEW RUN: ") {
		t.Errorf("the rerun after a finished run does not say it is a new run: %q", out.first())
	}
	snap, err := state.ReadSnapshot(filepath.Join(filepath.Dir(team), ".warden"))
	if err != nil {
		t.Fatal(err)
	}

	res := runToEnd(t, 0, "run", team, "--resume")
	if want := "CARRYING ON: run " + snap.RunID + " "; !strings.HasPrefix(res.first(), want) {
		t.Errorf("first line %q, want it to start %q", res.first(), want)
	}
	if res.count("CHECKPOINT: T1 - complete (100%)") != 1 || res.count("TASK COMPLETE: T1") != 1 {
		t.Errorf("the resumed run exited without its agent completing the task:\n%s", res.dump())
	}
	if p := lastResume(t, team); p < 30 {
		t.Errorf("the resumed session was told it reached %d%%, want the run's 30%% or later", p)
	}
}

// --resume --from ID reopens a task of a finished run; stopped, that run is
// carried on by the next --resume, which does the work rather than exiting
// 0 at once on the task's old -complete archive.
func TestFromThenStopThenResumeCarriesOn(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=1000")
	state := filepath.Join(filepath.Dir(team), ".warden")
	// A first run that completes T1 quickly: the same team with steps=3.
	quick := strings.Replace(readFile(t, team), "worker:steps=1000", "worker:steps=3", -1)
	os.WriteFile(team, []byte(quick), 0o600)
	runToEnd(t, 0, "run", team)
	os.WriteFile(team, []byte(strings.Replace(quick, "worker:steps=3", "worker:steps=1000", -1)), 0o600)
	id := earliestAnswer(t, state)

	cmd, out := runWarden(t, "run", team, "--resume", "--from", id)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 2)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after SIGTERM\n%s", exitCode(err), out.dump())
	}
	if out.count("STOPPED: run ") != 1 {
		t.Errorf("the stop does not say how to carry on:\n%s", out.dump())
	}

	cmd, out = runWarden(t, "run", team, "--resume")
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 1)
	if !strings.HasPrefix(out.first(), "CARRYING ON: ") {
		t.Errorf("first line %q", out.first())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// earliestAnswer is the id of the first answered checkpoint request in the
// history.
func earliestAnswer(t *testing.T, dir string) string {
	t.Helper()
	h, err := state.ReadHistory(dir, "T1")
	if err != nil {
		t.Fatal(err)
	}
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Trigger == "request" {
			return h[i].ID
		}
	}
	t.Fatalf("no answered request in %+v", h)
	return ""
}

// A fresh run puts the earlier run's open record aside as _aborted_; when
// the fresh run then crashes, --resume carries on the fresh run from its
// own record, never from the _aborted_ one.
func TestFreshRunThatCrashesIsNotResumedFromTheAborted(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=10")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (50%)", 1)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()

	cmd, out = runWarden(t, "run", team, "--fresh")
	out.waitFor(t, "CHECKPOINT: T1 - implementing (10%)", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !strings.HasPrefix(out.first(), "NEW RUN: ") || !strings.Contains(out.first(), "1 open record of earlier runs put aside") {
		t.Errorf("first line of --fresh: %q", out.first())
	}
	aborted, _ := filepath.Glob(filepath.Join(filepath.Dir(team), ".warden", "checkpoints", "w1-T1_aborted_*.json"))
	if len(aborted) != 1 {
		t.Fatalf("aborted records %v", aborted)
	}

	res := runToEnd(t, 0, "run", team, "--resume")
	if p := lastResume(t, team); p < 10 || p >= 50 {
		t.Errorf("the crashed fresh run resumed from %d%%: want its own record (10%%-40%%), not the aborted 50%%\n%s", p, res.dump())
	}
}

// A new user's path: Ctrl-C, then the same `warden run team.toml` carries
// on — the completed task is not run again — and says so in its first line;
// the stop said how. --fresh starts over.
func TestPlainRunAfterCtrlCCarriesOn(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=2", "worker:steps=1000")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "TASK COMPLETE: T1", 1)
	out.waitFor(t, "CHECKPOINT: T2 - implementing", 1)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after Ctrl-C", exitCode(err))
	}
	if out.count("STOPPED: run ") != 1 || !strings.Contains(out.dump(), "`warden run "+team+"` carries it on") {
		t.Errorf("the stop does not say how to carry on:\n%s", out.dump())
	}

	cmd, out = runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T2 - implementing", 1)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if !strings.HasPrefix(out.first(), "CARRYING ON: run ") || !strings.Contains(out.first(), "1 of 2 tasks complete") {
		t.Errorf("first line %q", out.first())
	}
	if n := out.count("CHECKPOINT: T1"); n != 0 {
		t.Errorf("the completed T1 ran again (%d checkpoints):\n%s", n, out.dump())
	}

	cmd, out = runWarden(t, "run", team, "--fresh")
	out.waitFor(t, "TASK COMPLETE: T1", 1)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if !strings.HasPrefix(out.first(), "NEW RUN: ") {
		t.Errorf("first line of --fresh %q", out.first())
	}
}

// --resume of a run that finished starts nothing and says so; the plain
// command starts a new run.
func TestResumeOfAFinishedRunSaysSo(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=1")
	runToEnd(t, 0, "run", team)
	res := runToEnd(t, 0, "run", team, "--resume")
	if !strings.HasPrefix(res.first(), "FINISHED: run ") || res.count("CHECKPOINT:") != 0 {
		t.Errorf("--resume of a finished run:\n%s", res.dump())
	}
	first, _ := state.ReadSnapshot(filepath.Join(filepath.Dir(team), ".warden"))
	res = runToEnd(t, 0, "run", team)
	if !strings.HasPrefix(res.first(), "NEW RUN: ") || res.count("TASK COMPLETE: T1") != 1 {
		t.Errorf("the plain run after a finished one:\n%s", res.dump())
	}
	// The history lists both runs' records, each with its run.
	second, _ := state.ReadSnapshot(filepath.Join(filepath.Dir(team), ".warden"))
	list, err := warden("checkpoints", team).CombinedOutput()
	if err != nil || !strings.Contains(string(list), " "+first.RunID+"\n") || !strings.Contains(string(list), " "+second.RunID+" (this run)\n") {
		t.Errorf("warden checkpoints: %v\n%s", err, list)
	}
}

// A new run in worktree mode starts its tasks from base: the earlier run's
// worktree is committed and removed, its branch kept as {branch}.run-{id}.
func TestNewRunRetiresTheEarlierRunsWorktree(t *testing.T) {
	defer proctest.AssertNone(t)
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".warden/\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	src := readFile(t, workerTeam(t, "worker:steps=3:write=notes.txt"))
	team := filepath.Join(repo, "team.toml")
	os.WriteFile(team, []byte(strings.Replace(src, "\n", "\nworkspace = \"worktree\"\n", 1)), 0o600)

	runToEnd(t, 0, "run", team)
	first, err := state.ReadSnapshot(filepath.Join(repo, ".warden"))
	if err != nil {
		t.Fatal(err)
	}
	res := runToEnd(t, 0, "run", team)
	kept := "warden/lifecycle/T1.run-" + first.RunID
	if !strings.Contains(res.dump(), "the earlier run's work on it is on branch "+kept) {
		t.Errorf("the new run does not say where the earlier work is:\n%s", res.dump())
	}
	if n := strings.Count(git("show", kept+":notes.txt"), "T1 step 1\n"); n != 1 {
		t.Errorf("the earlier run's branch holds its step 1 %d times", n)
	}
	if n := strings.Count(git("show", "warden/lifecycle/T1:notes.txt"), "T1 step 1\n"); n != 1 {
		t.Errorf("the new run's branch holds step 1 %d times: it did not start from base", n)
	}
}

// `--resume --from` an id the history does not hold fails before anything
// is printed or logged: exit 2 (bad usage), the reason on stderr, no
// CARRYING ON line, no run_started event, state.json as it was (issue
// 31). The same for a record whose task the team file no longer has.
func TestFromAnUnknownCheckpointFailsFirst(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=1")
	runToEnd(t, 0, "run", team)
	dir := filepath.Join(filepath.Dir(team), ".warden")
	id := earliestAnswer(t, dir)
	events := func() string { return readFile(t, filepath.Join(dir, "events.jsonl")) }
	snapBefore, evBefore := readFile(t, filepath.Join(dir, "state.json")), events()
	run := func(args ...string) (code int, stdout, stderr string) {
		cmd := warden(args...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return exitCode(err), o.String(), e.String()
	}

	code, stdout, stderr := run("run", team, "--resume", "--from", "w1-T1-nope")
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, want 2, and nothing on stdout; stdout:\n%s", code, stdout)
	}
	if !strings.Contains(stderr, `no checkpoint "w1-T1-nope" in the history`) {
		t.Errorf("stderr does not say why:\n%s", stderr)
	}
	if ev := events(); ev != evBefore || strings.Count(ev, `"event":"run_started"`) != 1 {
		t.Errorf("events logged for a refused --from:\n%s", strings.TrimPrefix(ev, evBefore))
	}
	if readFile(t, filepath.Join(dir, "state.json")) != snapBefore {
		t.Errorf("state.json changed")
	}

	// A record of a task the team file no longer has.
	os.WriteFile(team, []byte(strings.Replace(readFile(t, team), `id = "T1"`, `id = "T9"`, 1)), 0o600)
	code, stdout, stderr = run("run", team, "--resume", "--from", id)
	if code != 2 || stdout != "" || !strings.Contains(stderr, `is of task "T1", which the team file no longer has`) || events() != evBefore {
		t.Errorf("a --from of a task gone: exit %d; stdout\n%s\nstderr\n%s", code, stdout, stderr)
	}
}

// A page that cannot be bound (`--http` on an address in use) fails the
// run before it begins: exit 2, nothing on stdout, no run_started.
func TestABadPageAddressFailsFirst(t *testing.T) {
	defer proctest.AssertNone(t)
	team := workerTeam(t, "worker:steps=1")
	runToEnd(t, 0, "run", team)
	dir := filepath.Join(filepath.Dir(team), ".warden")
	evBefore := readFile(t, filepath.Join(dir, "events.jsonl"))
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()

	cmd := warden("run", team, "--http", busy.Addr().String())
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	code := exitCode(cmd.Run())
	if code != 2 || o.String() != "" || !strings.Contains(e.String(), "dashboard page") {
		t.Errorf("exit %d, want 2 with nothing on stdout; stdout\n%s\nstderr\n%s", code, o.String(), e.String())
	}
	if ev := readFile(t, filepath.Join(dir, "events.jsonl")); ev != evBefore {
		t.Errorf("events logged for a run that did not begin:\n%s", strings.TrimPrefix(ev, evBefore))
	}
}
