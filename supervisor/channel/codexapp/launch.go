package codexapp

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

// Bounds of the launch.
const (
	// serverStart bounds the wait for the app-server's socket; past it
	// the TUI runs on its own.
	serverStart = 30 * time.Second
	// serverStop is how long the app-server has to exit once the TUI did.
	serverStop = 3 * time.Second
)

// Launch runs what `warden codex-remote` runs under an agent's pty: the
// app-server of tui (profile.CodexServerArgv) on the unix socket sock, then the TUI
// attached to it (tui, a RemoteArgv) in the foreground, both in the pty's
// process group, so that they die with it. The server's output goes to
// the file logPath (0600), never to the screen. A server that does not
// make its socket leaves the TUI on its own (profile.CodexLocalArgv): warden reads its
// screen as before. Once the TUI exits the server is asked to exit, and
// Launch returns the TUI's exit code (128+N for a signal). A server that
// exits while the TUI runs leaves it "Reconnecting to server…" for good:
// the TUI is then stopped and Launch fails, so that warden restarts the
// agent as it would after a crash.
func Launch(sock, logPath string, tui []string, stderr io.Writer) int {
	// The group's signals (warden's TERM, the pty's HUP) are the TUI's to
	// act on: the launcher outlives them until the TUI exits. Caught, not
	// ignored, so the children get the default dispositions.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)

	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "warden codex-remote: %v\n", err)
		logf = nil
	}
	note := func(format string, a ...any) {
		if logf != nil {
			fmt.Fprintf(logf, "warden: "+format+"\n", a...)
		}
	}
	server, err := startServer(tui, sock, logf)
	if err != nil {
		note("the app-server did not start (%v): the TUI runs on its own", err)
		tui = profile.CodexLocalArgv(tui)
	} else {
		note("app-server %d listens on %s", server.cmd.Process.Pid, sock)
	}
	var lost <-chan error
	if server != nil {
		lost = server.exited
	}
	code, serverLost := runTUI(tui, note, lost)
	if server != nil && !serverLost {
		stopServer(server, note)
	}
	if logf != nil {
		logf.Close()
	}
	return code
}

// server is the app-server the launcher started; exited receives its
// Wait.
type server struct {
	cmd    *exec.Cmd
	exited chan error
}

// startServer starts the app-server and waits for its socket.
func startServer(tui []string, sock string, logf *os.File) (*server, error) {
	if fi, err := os.Lstat(sock); err == nil && fi.Mode().Type()&(fs.ModeSocket|fs.ModeSymlink) != 0 {
		os.Remove(sock) // the socket of an earlier session of this agent
	}
	argv := profile.CodexServerArgv(tui, sock)
	cmd := exec.Command(argv[0], argv[1:]...)
	if logf != nil {
		cmd.Stdout, cmd.Stderr = logf, logf
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	deadline := time.Now().Add(serverStart)
	for {
		// Codex listens in a short directory of its own
		// (/tmp/codex-daemon-UID/HASH) and links sock to it.
		if fi, err := os.Stat(sock); err == nil && fi.Mode().Type() == fs.ModeSocket {
			return s, nil
		}
		select {
		case err := <-s.exited:
			return nil, fmt.Errorf("it exited: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-s.exited
			return nil, fmt.Errorf("no socket after %s", serverStart)
		}
	}
}

// runTUI runs the TUI on the pty (the launcher's stdio) and returns its
// exit code. When the server exits first (lost) the TUI is stopped: TERM,
// KILL after serverStop; the code is then never 0.
func runTUI(argv []string, note func(string, ...any), lost <-chan error) (code int, serverLost bool) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		note("the TUI did not start: %v", err)
		return 127, false
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case err := <-lost:
		serverLost = true
		note("the app-server exited (%v) while the TUI ran: the TUI is stopped", err)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(serverStop):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	code = cmd.ProcessState.ExitCode()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if serverLost && code == 0 {
		code = 1
	}
	return code, serverLost
}

// stopServer asks the app-server to exit (TERM), and kills it after
// serverStop.
func stopServer(s *server, note func(string, ...any)) {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(serverStop):
		note("the app-server did not exit within %s of TERM: killed", serverStop)
		s.cmd.Process.Kill()
		<-s.exited
	}
}
