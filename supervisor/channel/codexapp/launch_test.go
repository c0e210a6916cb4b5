//go:build e2e

package codexapp

import (
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"

	"github.com/wardenhq/warden/protocol/profile"
)

// envFake makes the test binary, run as "codex", a fake Codex: with
// app-server it listens on the socket of --listen (or exits 3 when the
// variable says "no-server"; exits 5 a moment after it listens with
// "server-dies", once the TUI wrote DIR/tui) until TERM; as the TUI it writes its arguments to DIR/tui
// and exits 7 (with "server-dies": waits for TERM, writes DIR/tui-stopped
// and exits 0). Both write what they saw into DIR,
// the variable's value after "dir=".
const envFake = "CODEXAPP_FAKE_CODEX"

func fakeCodex() {
	spec := os.Getenv(envFake)
	if spec == "" {
		return
	}
	dir := spec[strings.Index(spec, "dir=")+4:]
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "app-server" {
		if strings.HasPrefix(spec, "no-server") {
			os.Exit(3)
		}
		os.WriteFile(filepath.Join(dir, "server"), []byte(strings.Join(args, "\n")), 0o600)
		var sock string
		for i, a := range args {
			if a == "--listen" {
				sock = strings.TrimPrefix(args[i+1], "unix://")
			}
		}
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		l, err := net.Listen("unix", sock)
		if err != nil {
			os.Exit(4)
		}
		if strings.HasPrefix(spec, "server-dies") {
			// Dies once the TUI runs and takes TERM (it writes DIR/tui
			// then): a TUI still starting would die of the TERM instead.
			for i := 0; i < 300; i++ {
				if _, err := os.Stat(filepath.Join(dir, "tui")); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			os.Exit(5)
		}
		<-term
		l.Close()
		os.WriteFile(filepath.Join(dir, "server-terminated"), nil, 0o600)
		os.Exit(0)
	}
	term := make(chan os.Signal, 1)
	if strings.HasPrefix(spec, "server-dies") {
		signal.Notify(term, syscall.SIGTERM)
	}
	os.WriteFile(filepath.Join(dir, "tui"), []byte(strings.Join(args, "\n")), 0o600)
	if strings.HasPrefix(spec, "server-dies") {
		<-term
		os.WriteFile(filepath.Join(dir, "tui-stopped"), nil, 0o600)
		os.Exit(0)
	}
	os.Exit(7)
}

// fakeCodexBin links the test binary as DIR/codex.
func fakeCodexBin(t *testing.T, spec string) (dir, bin string) {
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "codex")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envFake, spec+"dir="+dir)
	t.Setenv(fakeagent.EnvOwner, strconv.Itoa(os.Getpid()))
	return dir, bin
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return strings.Split(string(b), "\n")
}

// The launcher starts the app-server with the TUI's -c settings, waits for
// its socket, runs the TUI attached to it, asks the server to exit once
// the TUI did, and exits with the TUI's code; nothing is left running.
func TestLaunchRunsTheServerBesideTheTUI(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) })
	dir, bin := fakeCodexBin(t, "")
	sock := filepath.Join(dir, "app.sock")
	tui := profile.CodexRemoteArgv([]string{bin, "-c", `notify=["warden","hook"]`, "--no-alt-screen", "--no-daemon", "-a", "never"}, sock)
	if code := Launch(sock, filepath.Join(dir, "log"), tui, os.Stderr); code != 7 {
		t.Errorf("exit code %d, want the TUI's 7", code)
	}
	server := strings.Join(readLines(t, filepath.Join(dir, "server")), " ")
	if server != `app-server --listen unix://`+sock+` -c notify=["warden","hook"]` {
		t.Errorf("the server ran with %q", server)
	}
	tuiArgs := strings.Join(readLines(t, filepath.Join(dir, "tui")), " ")
	if tuiArgs != `--remote unix://`+sock+` -c notify=["warden","hook"] --no-alt-screen -a never` {
		t.Errorf("the TUI ran with %q", tuiArgs)
	}
	if _, err := os.Stat(filepath.Join(dir, "server-terminated")); err != nil {
		t.Error("the app-server was not asked to exit once the TUI had")
	}
}

// A Codex whose app-server makes no socket (it exits at once here): the
// TUI runs on its own, with --no-daemon and without --remote, and the
// log says why.
func TestLaunchWithoutAnAppServer(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) })
	dir, bin := fakeCodexBin(t, "no-server,")
	sock := filepath.Join(dir, "app.sock")
	log := filepath.Join(dir, "log")
	if code := Launch(sock, log, profile.CodexRemoteArgv([]string{bin, "--no-alt-screen", "--no-daemon"}, sock), os.Stderr); code != 7 {
		t.Errorf("exit code %d, want the TUI's 7", code)
	}
	if got := strings.Join(readLines(t, filepath.Join(dir, "tui")), " "); got != "--no-daemon --no-alt-screen" {
		t.Errorf("the TUI ran with %q, want it on its own", got)
	}
	if l := strings.Join(readLines(t, log), "\n"); !strings.Contains(l, "the app-server did not start") {
		t.Errorf("the log says:\n%s", l)
	}
	fi, err := os.Stat(log)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the log: %v %v, want 0600", fi.Mode(), err)
	}
}

// An app-server that dies under a running TUI would leave it reconnecting
// for good (the real Codex shows "Reconnecting to server…"): the launcher
// stops the TUI and fails, as a crash of the agent, which warden restarts.
func TestLaunchStopsTheTUIWhenItsServerDies(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) })
	dir, bin := fakeCodexBin(t, "server-dies,")
	sock := filepath.Join(dir, "app.sock")
	log := filepath.Join(dir, "log")
	if code := Launch(sock, log, profile.CodexRemoteArgv([]string{bin, "--no-alt-screen", "--no-daemon"}, sock), os.Stderr); code == 0 {
		t.Error("exit code 0, want a failure")
	}
	if _, err := os.Stat(filepath.Join(dir, "tui-stopped")); err != nil {
		t.Error("the TUI was not stopped")
	}
	if l := strings.Join(readLines(t, log), "\n"); !strings.Contains(l, "the app-server exited") {
		t.Errorf("the log says:\n%s", l)
	}
}
