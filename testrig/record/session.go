package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"

	wprofile "github.com/wardenhq/warden/protocol/profile"
)

// typed is one write the recorder made to the CLI.
type typed struct {
	// AtMS is the time since the CLI started, in milliseconds.
	AtMS int64 `json:"at_ms"`
	// Offset is how many output bytes were recorded before this write.
	Offset int    `json:"offset"`
	Text   string `json:"text"`
}

// session is one CLI process under a pty, with every byte it writes kept
// and fed to a VT emulator so that the recorder can see its screen.
type session struct {
	logger hclog.Logger
	cmd    *exec.Cmd
	ptmx   *os.File
	start  time.Time

	mu      sync.Mutex
	raw     bytes.Buffer
	em      *vt.Emulator
	osc     oscFilter
	modes   wprofile.ModeTracker
	typed   []typed
	lastOut time.Time
	// marks are the reads: where each ended in raw and when.
	marks []mark
	// answer7501 makes the session answer Claude's OSC 7501 probe, as a
	// terminal that shows program status does; probe is where it is.
	answer7501 bool
	// prof, when set, tells submit when typed text has landed in the
	// input box (the CLIs added after the first three).
	prof     *wprofile.Profile
	probe    probeScan
	answered []mark

	readDone chan struct{}
	waitDone chan struct{}
	waitErr  error
}

func startSession(logger hclog.Logger, argv, env []string, dir string, cols, rows int) (*session, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	s := &session{logger: logger.Named("session"), cmd: cmd, ptmx: ptmx, start: time.Now(),
		em: vt.NewEmulator(cols, rows), readDone: make(chan struct{}), waitDone: make(chan struct{})}
	s.lastOut = s.start
	go s.read()
	go s.answerQueries()
	go func() {
		s.waitErr = cmd.Wait()
		close(s.waitDone)
	}()
	return s, nil
}

// read records the output and feeds the emulator until EOF or EIO.
func (s *session) read() {
	defer close(s.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, err := s.ptmx.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.raw.Write(buf[:n])
			s.lastOut = time.Now()
			s.marks = append(s.marks, mark{Offset: s.raw.Len(), AtMS: s.lastOut.Sub(s.start).Milliseconds()})
			_, _ = s.modes.Write(buf[:n])
			// The probe's answer goes out before the emulator answers the
			// queries in the same read: Claude sends the probe, then DA1
			// (ESC [ c), and ignores a status answer that comes after DA1's.
			if s.answer7501 {
				for range s.probe.scan(buf[:n]) {
					s.answered = append(s.answered, mark{Offset: s.raw.Len(), AtMS: time.Since(s.start).Milliseconds()})
					_, _ = s.ptmx.Write([]byte(osc7501Reply))
				}
			}
			_, _ = s.em.Write(s.osc.filter(buf[:n]))
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// answerQueries forwards the emulator's replies (cursor position, device
// attributes, colours) to the CLI, as a terminal would.
func (s *session) answerQueries() {
	buf := make([]byte, 4096)
	for {
		n, err := s.em.Read(buf)
		if n > 0 {
			_, _ = s.ptmx.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// write types text as one write and notes it.
func (s *session) write(text string) error {
	s.mu.Lock()
	s.typed = append(s.typed, typed{AtMS: time.Since(s.start).Milliseconds(), Offset: s.raw.Len(), Text: text})
	s.mu.Unlock()
	if _, err := s.ptmx.Write([]byte(text)); err != nil {
		return fmt.Errorf("type %q: %w", text, err)
	}
	return nil
}

// submit types text, waits 700 ms, then sends Enter as its own write.
func (s *session) submit(ctx context.Context, text string) error {
	if err := s.write(text); err != nil {
		return err
	}
	if err := sleep(ctx, 700*time.Millisecond); err != nil {
		return err
	}
	s.waitLanded(ctx)
	return s.write("\r")
}

// waitLanded waits, as warden's Submit does, for the typed text to show in
// the input box of a CLI whose profile the session has: OpenCode draws its
// first screen seconds before it reads input (on a loaded machine, 3 s
// after its prompt showed), and Enter typed before then lands with the
// text. Up to 10 s, so that the recording shows the text in the box.
func (s *session) waitLanded(ctx context.Context) {
	if s.prof == nil {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rows := strings.Split(s.visible(), "\n")
		if !s.prof.InputEmpty(rowsScreen(rows)) {
			return
		}
		if sleep(ctx, 25*time.Millisecond) != nil {
			return
		}
	}
	s.logger.Warn("typed text not seen in the input box")
}

// rowsScreen is a screen of rows for a profile's readers.
type rowsScreen []string

func (r rowsScreen) Rows() []string  { return r }
func (r rowsScreen) Bracketed() bool { return false }

// submitAsWarden types text as warden does (protocol/profile.Submit):
// bracketed when the CLI enabled bracketed paste, Enter 700 ms later as a
// write of its own.
func (s *session) submitAsWarden(ctx context.Context, text string) error {
	s.mu.Lock()
	bracketed := s.modes.Bracketed()
	s.mu.Unlock()
	if bracketed {
		text = "\x1b[200~" + text + "\x1b[201~"
	}
	return s.submit(ctx, text)
}

// stop waits for the CLI to exit, then SIGTERMs and SIGKILLs its process
// group, and waits for the reader. It returns the exit code (-1 if killed).
func (s *session) stop(grace time.Duration) int {
	select {
	case <-s.waitDone:
	case <-time.After(grace):
		s.logger.Warn("cli did not exit, terminating group", "pid", s.cmd.Process.Pid)
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.waitDone:
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.waitDone
		}
	}
	// Whatever is still in the group (a helper the CLI left) goes too.
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-s.readDone:
	case <-time.After(2 * time.Second):
	}
	_ = s.ptmx.Close()
	<-s.readDone
	_ = s.em.Close()
	var exitErr *exec.ExitError
	switch {
	case s.waitErr == nil:
		return 0
	case errors.As(s.waitErr, &exitErr):
		return exitErr.ExitCode()
	}
	return -1
}

// output returns every byte recorded and the writes made.
func (s *session) output() ([]byte, []typed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.raw.Bytes()), append([]typed(nil), s.typed...)
}

// reads returns where each read ended and when, and the OSC 7501 probes
// answered.
func (s *session) reads() (marks, answered []mark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mark(nil), s.marks...), append([]mark(nil), s.answered...)
}

// mark is a place in the output: bytes recorded before it, and when.
type mark struct {
	Offset int   `json:"offset"`
	AtMS   int64 `json:"at_ms"`
}

// atMS is when the byte at offset was read.
func atMS(marks []mark, offset int) int64 {
	for _, m := range marks {
		if m.Offset >= offset {
			return m.AtMS
		}
	}
	if len(marks) > 0 {
		return marks[len(marks)-1].AtMS
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var _ io.Writer = (*vt.Emulator)(nil)
