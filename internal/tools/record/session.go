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
	typed   []typed
	lastOut time.Time

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
	return s.write("\r")
}

// screen returns the scrollback and the visible screen as text.
func (s *session) screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sb strings.Builder
	for _, l := range s.em.Scrollback().Lines() {
		sb.WriteString(strings.TrimRight(l.String(), " "))
		sb.WriteByte('\n')
	}
	for _, l := range strings.Split(s.em.String(), "\n") {
		sb.WriteString(strings.TrimRight(l, " "))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// waitScreen polls until the screen holds one of the wanted strings.
func (s *session) waitScreen(ctx context.Context, timeout time.Duration, want ...string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		scr := s.screen()
		for _, w := range want {
			if strings.Contains(scr, w) {
				return nil
			}
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("wait for %q on screen: %w", want, err)
		}
	}
}

// settle waits until no output came for quiet, or max has passed.
func (s *session) settle(ctx context.Context, quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		last := s.lastOut
		s.mu.Unlock()
		if time.Since(last) >= quiet {
			return
		}
		if sleep(ctx, 50*time.Millisecond) != nil {
			return
		}
	}
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

// oscFilter drops OSC strings (ESC ] ... BEL or ESC \) from the stream fed
// to the emulator: x/vt lets window titles leak onto the screen
// (charmbracelet/x#848). It keeps its state across writes.
type oscFilter struct {
	inOSC bool
	esc   bool
}

func (f *oscFilter) filter(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		switch {
		case f.inOSC:
			switch {
			case b == 0x07:
				f.inOSC, f.esc = false, false
			case f.esc && b == '\\':
				f.inOSC, f.esc = false, false
			default:
				f.esc = b == 0x1b
			}
		case f.esc:
			f.esc = false
			if b == ']' {
				f.inOSC = true
				continue
			}
			out = append(out, 0x1b, b)
		case b == 0x1b:
			f.esc = true
		default:
			out = append(out, b)
		}
	}
	return out
}
