//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
)

// victim is a file and a directory outside the state dir that a planted
// symlink points at; untouched reports what changed about them.
type victim struct {
	file, dir string
	fileMod   time.Time
}

func newVictim(t *testing.T) *victim {
	t.Helper()
	base := t.TempDir()
	v := &victim{file: filepath.Join(base, "precious.txt"), dir: filepath.Join(base, "precious-dir")}
	if err := os.WriteFile(v.file, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(v.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(v.dir, 0o755)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(v.file, old, old)
	v.fileMod = old
	return v
}

func (v *victim) untouched(t *testing.T) {
	t.Helper()
	fi, err := os.Stat(v.file)
	if b, _ := os.ReadFile(v.file); err != nil || string(b) != "precious\n" || fi.Mode().Perm() != 0o644 || !fi.ModTime().Equal(v.fileMod) {
		t.Errorf("the file outside the state dir was touched: %q %v %v", b, fi.Mode(), err)
	}
	di, err := os.Stat(v.dir)
	ents, _ := os.ReadDir(v.dir)
	if err != nil || di.Mode().Perm() != 0o755 || len(ents) != 0 {
		t.Errorf("the directory outside the state dir was touched: mode %v, entries %v, %v", di.Mode(), ents, err)
	}
}

// Symlinks planted in a state dir are never followed: `warden run` refuses
// to start, exit 2, with an error naming the planted path, and nothing
// outside the state dir changes (content, mode, time, new entries).
func TestRunRefusesPlantedSymlinks(t *testing.T) {
	defer proctest.AssertNone(t)
	for _, c := range []struct{ rel, to string }{
		{"lock", "file"}, {"events.jsonl", "file"}, {"state.json", "file"}, {"STATUS.md", "file"},
		{"handoff.md", "file"}, {"hooks.sock", "file"},
		{"logs", "dir"}, {"logs/w1.log", "file"}, {"checkpoints", "dir"}, {"checkpoints/backups", "dir"},
		{"checkpoints/history", "dir"}, {"checkpoints/history/T1", "dir"}, {"checkpoints/w1-T1.json", "file"},
		{"handoffs", "dir"}, {"hooks", "dir"}, {"hooks/w1.spool.jsonl", "file"}, {"agents", "dir"},
		{"agents/w1", "dir"}, {"worktrees", "dir"},
	} {
		t.Run(strings.ReplaceAll(c.rel, "/", "_"), func(t *testing.T) {
			team := workerTeam(t, "worker:steps=1")
			st := filepath.Join(filepath.Dir(team), ".warden")
			v := newVictim(t)
			planted := filepath.Join(st, c.rel)
			if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(st, "state.json"), []byte("{}\n"), 0o600) // a warden state dir
			os.Remove(planted)
			target := v.file
			if c.to == "dir" {
				target = v.dir
			}
			if err := os.Symlink(target, planted); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := warden("run", team)
			cmd.Stderr = &stderr
			err := cmd.Run()
			if exitCode(err) != 2 || !strings.Contains(stderr.String(), planted) || !strings.Contains(stderr.String(), "symbolic link") {
				t.Errorf("warden run with a symlink at %s: exit %d, want 2 and an error naming it\n%s", c.rel, exitCode(err), stderr.String())
			}
			v.untouched(t)
			if fi, err := os.Lstat(planted); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link itself was changed: %v %v", fi, err)
			}
		})
	}
}

// A state dir that others may write to, that is a file, or that is "/" is
// refused by validate (at the key's position) and by run, and its mode is
// never changed.
func TestStateDirSharedOrSystemIsRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777|os.ModeSticky)
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, []byte("x"), 0o600)
	for _, c := range []struct{ dir, want string }{
		{"/", "/"}, {shared, "other users"}, {open, "other users"}, {file, "not a directory"},
	} {
		team := workerTeam(t, "worker:steps=1")
		body, _ := os.ReadFile(team)
		os.WriteFile(team, append([]byte("state_dir = \""+c.dir+"\"\n"), body...), 0o600)
		before, _ := os.Stat(c.dir)
		for _, verb := range []string{"validate", "run"} {
			out, err := warden(verb, team).CombinedOutput()
			if exitCode(err) != 2 || !strings.Contains(string(out), team+":1:1:") || !strings.Contains(string(out), c.want) {
				t.Errorf("%s with state_dir = %q: exit %d, want 2 and %s:1:1 saying %q\n%s", verb, c.dir, exitCode(err), team, c.want, out)
			}
		}
		if after, _ := os.Stat(c.dir); after.Mode() != before.Mode() {
			t.Errorf("the mode of %s changed from %v to %v", c.dir, before.Mode(), after.Mode())
		}
	}
}

// A FIFO planted at the lock or the event log never blocks warden.
func TestRunRefusesPlantedFIFOs(t *testing.T) {
	defer proctest.AssertNone(t)
	for _, rel := range []string{"lock", "events.jsonl"} {
		team := workerTeam(t, "worker:steps=1")
		st := filepath.Join(filepath.Dir(team), ".warden")
		os.Mkdir(st, 0o700)
		os.WriteFile(filepath.Join(st, "state.json"), []byte("{}\n"), 0o600)
		if err := syscall.Mkfifo(filepath.Join(st, rel), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := warden("run", team)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Start()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if exitCode(err) != 2 || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("a FIFO at %s: exit %d\n%s", rel, exitCode(err), stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("a FIFO at %s blocked warden\n%s", rel, stderr.String())
		}
	}
}

// `warden checkpoint` writes the signal file only inside the state dir,
// whatever state.json says; a link planted at the signal file is replaced,
// never written through; a shared directory is refused as a state dir.
func TestCheckpointSignalFileStaysInside(t *testing.T) {
	v := newVictim(t)
	st := t.TempDir()
	for _, sf := range []string{v.file, filepath.Join(st, "..", filepath.Base(filepath.Dir(v.file)), "precious.txt"), "/etc/passwd"} {
		os.WriteFile(filepath.Join(st, "state.json"), []byte(`{"team":"t","signal_file":`+strconvQuote(sf)+`}`), 0o600)
		out, err := warden("checkpoint", "--state-dir", st).CombinedOutput()
		if exitCode(err) == 0 || !strings.Contains(string(out), "is not inside the state dir") {
			t.Errorf("signal_file %s in state.json: exit %d\n%s", sf, exitCode(err), out)
		}
	}
	os.WriteFile(filepath.Join(st, "state.json"), []byte(`{"team":"t"}`), 0o600)
	signal := filepath.Join(st, "checkpoint-needed")
	os.Symlink(v.file, signal)
	if out, err := warden("checkpoint", "--state-dir", st).CombinedOutput(); err != nil {
		t.Fatalf("checkpoint: %v\n%s", err, out)
	}
	if fi, err := os.Lstat(signal); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the signal file is not a regular file of its own: %v %v", fi, err)
	}
	v.untouched(t)
	os.Remove(signal)
	os.Symlink(v.dir, filepath.Join(st, "sub"))
	os.WriteFile(filepath.Join(st, "state.json"), []byte(`{"team":"t","signal_file":`+strconvQuote(filepath.Join(st, "sub", "x"))+`}`), 0o600)
	if out, err := warden("checkpoint", "--state-dir", st).CombinedOutput(); exitCode(err) == 0 || !strings.Contains(string(out), "symbolic link") {
		t.Errorf("a signal file under a linked directory: exit %d\n%s", exitCode(err), out)
	}
	v.untouched(t)
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777|os.ModeSticky)
	if out, err := warden("checkpoint", "--state-dir", shared).CombinedOutput(); exitCode(err) == 0 || !strings.Contains(string(out), "other users") {
		t.Errorf("checkpoint in a shared dir: exit %d\n%s", exitCode(err), out)
	}
	if ents, _ := os.ReadDir(shared); len(ents) != 0 {
		t.Errorf("files made in the shared dir: %v", ents)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// `warden status` of a crafted state dir prints no control character — no
// clipboard write (OSC 52), no window title (OSC 0), no clear screen, no C1
// CSI or OSC — and nothing that makes the text read otherwise (U+202E, a
// zero-width space, a tag character), as text or as JSON.
func TestStatusPrintsNoEscapeSequences(t *testing.T) {
	st := t.TempDir()
	evil := strconvQuote("x\n| forged |\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J\x1b[3J\u009b31m\u009d0;t\u009c\x00\x7f" +
		"\u202etxt.exe\u200b\U000e0041")
	state := `{"team":EVIL,"signal_file":"","pid":0,"running":false,
	"agents":[{"name":EVIL,"state":EVIL,"attempt":1,"exit":EVIL,"reason":EVIL,"task":EVIL,"exit_code":0,"dialog":EVIL}],
	"tasks":[{"id":EVIL,"title":EVIL,"state":EVIL,"owner":EVIL,"attempt":1,"progress":5,"summary":"blocked","blockers":[EVIL],
	  "last_done":EVIL,"branch":EVIL,"base":EVIL,"blocked_by":[EVIL],"verify":EVIL,"reason":EVIL,
	  "phase":EVIL,"current_step":EVIL,"subtasks_done":1,"subtasks_total":2,"errors":3,"held":true}]}`
	os.WriteFile(filepath.Join(st, "state.json"), []byte(strings.ReplaceAll(state, "EVIL", evil)), 0o600)
	os.Mkdir(filepath.Join(st, "checkpoints"), 0o700)
	cp := `{"checkpoint_id":EVIL,"agent":EVIL,"task_id":EVIL,"status":EVIL,"notes":EVIL,"completed":[EVIL]}`
	os.WriteFile(filepath.Join(st, "checkpoints", "w1-T1.json"), []byte(strings.ReplaceAll(cp, "EVIL", evil)), 0o600)
	for _, args := range [][]string{{"status", "--state-dir", st}, {"status", "--state-dir", st, "--json"}} {
		out, err := warden(args...).Output()
		if err != nil || !strings.Contains(string(out), "forged") {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, r := range string(out) {
			if r != '\n' && (protocol.IsControl(r) || protocol.IsInvisible(r)) {
				t.Errorf("%v prints the control character %U:\n%q", args, r, out)
				break
			}
		}
		if args[len(args)-1] == "--json" && !json.Valid(out) {
			t.Errorf("--json output is not JSON:\n%s", out)
		}
	}
}

// verifyTeam is one fake worker that reports its task complete at once,
// whose verify command is verify.
func verifyTeam(t *testing.T, verify string) string {
	team := workerTeam(t, "worker:steps=1")
	body, _ := os.ReadFile(team)
	body = bytes.Replace(body, []byte(`shutdown_timeout = "1s"`), []byte(`shutdown_timeout = "3s"`), 1)
	body = bytes.Replace(body, []byte(`checkpoint_timeout = "2s"`), []byte(`checkpoint_timeout = "1s"`), 1)
	os.WriteFile(team, append(body, []byte("verify = "+verify+"\n")...), 0o600)
	return team
}

// sleeping waits for a leftover `sleep 45` of this test and returns whether
// one showed up.
func sleeping(within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		for _, p := range proctest.Leftovers() {
			if p.Cmdline == "sleep 45" {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A verify command that leaves a child holding its output (`sleep 45 &
// exit 1`), or that is still running, never holds warden: SIGTERM ends the
// run within shutdown_timeout (3 s) + 1 s, and the sleep is gone.
func TestVerifyLeavingAChildNeverHoldsWarden(t *testing.T) {
	for _, c := range []struct{ name, verify, waitFor string }{
		{"child left behind", `["sh", "-c", "sleep 45 & exit 1"]`, "VERIFY FAILED: T1"},
		{"still running", `["sh", "-c", "sleep 45 & sleep 45; exit 1"]`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer proctest.AssertNone(t)
			cmd, out := runWarden(t, "run", verifyTeam(t, c.verify))
			if c.waitFor != "" {
				out.waitFor(t, c.waitFor, 1)
			} else if !sleeping(20 * time.Second) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the verify command never ran")
			}
			t0 := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				took := time.Since(t0)
				t.Logf("SIGTERM to exit: %s", took)
				if exitCode(err) != 130 || took > 4*time.Second {
					t.Errorf("after SIGTERM: exit %d in %s, want 130 within 4s", exitCode(err), took)
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatal("SIGTERM did not end warden within 60 s")
			}
			if sleeping(0) {
				t.Error("the verify's sleep outlived warden")
			}
		})
	}
}

// validate and run refuse an agent dir that does not exist and a command
// path that does not exist, each at its key, before anything starts.
func TestMissingDirAndCommandAreRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	team := filepath.Join(dir, "team.toml")
	os.WriteFile(team, []byte("name = \"t\"\n[[agent]]\nname = \"a\"\ncommand = [\"/usr/bin/true\"]\ndir = \"gone\"\n"+
		"[[agent]]\nname = \"b\"\ncommand = [\"./bin/agent\"]\n"), 0o600)
	for _, verb := range []string{"validate", "run"} {
		out, err := warden(verb, team).CombinedOutput()
		if exitCode(err) != 2 || !strings.Contains(string(out), team+":5:1: dir "+filepath.Join(dir, "gone")+" does not exist") ||
			!strings.Contains(string(out), team+":8:1: command \"./bin/agent\" does not exist") {
			t.Errorf("%s: exit %d\n%s", verb, exitCode(err), out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".warden")); err == nil {
		t.Error("run made a state dir for a team it refused")
	}
}

// `warden replay --list` of a crafted recording prints its title without a
// control character (the recording's own output is what replay plays).
func TestReplayListPrintsNoEscapeSequences(t *testing.T) {
	st := t.TempDir()
	os.WriteFile(filepath.Join(st, "state.json"), []byte(`{"team":"t"}`), 0o600)
	os.Mkdir(filepath.Join(st, "logs"), 0o700)
	title := strconvQuote("forged\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\u009b2J\x00")
	os.WriteFile(filepath.Join(st, "logs", "w1-abc123.cast"), []byte(
		`{"version":2,"width":80,"height":24,"timestamp":1700000000,"title":`+title+"}\n"+`[0.5,"o","hi"]`+"\n"), 0o600)
	out, err := warden("replay", "--list", "--state-dir", st, "w1").Output()
	if err != nil || !strings.Contains(string(out), "forged") {
		t.Fatalf("replay --list: %v\n%q", err, out)
	}
	for _, r := range string(out) {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)) {
			t.Errorf("replay --list prints the control character %U:\n%q", r, out)
			break
		}
	}
}
