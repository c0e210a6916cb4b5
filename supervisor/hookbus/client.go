package hookbus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/supervisor/state"
)

// SendTimeout bounds Send from dial to reply: a hook must never hang its CLI.
// 800 ms, not 500: on a loaded machine (the test suite under -race beside
// real CLIs) a supervisor's reply took longer than 500 ms. It leaves the
// hook time to spool the message within HookDeadline (at 900 ms each, a
// hook whose supervisor never answered was cut off before it spooled:
// TestHookProcessCannotConnectExitsFast in a whole run).
const SendTimeout = 800 * time.Millisecond

// ErrBusy is returned by Send when the server had no room for the message.
var ErrBusy = errors.New("hook bus busy")

// ErrRefused is returned by Send when the server refused the message: its
// sender is not a process of the agent it names. It is not spooled.
var ErrRefused = errors.New("hook message refused: the sender is not a process of the agent it names")

// Send delivers m to the server at path and waits for its receipt, all
// within SendTimeout. It talks only to a socket of this user's, in a
// directory no one else may write to, served by a process of this user's
// (unixsock.Dial): never to one another user put in warden's place.
func Send(path string, m Message) error {
	if m.At.IsZero() {
		m.At = time.Now()
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode hook message: %w", err)
	}
	deadline := time.Now().Add(SendTimeout)
	c, err := unixsock.Dial(path, SendTimeout)
	if err != nil {
		return fmt.Errorf("connect to hook socket: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("send hook message: %w", err)
	}
	_ = c.CloseWrite()
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("read hook receipt: %w", err)
	}
	switch strings.TrimSpace(reply) {
	case replyOK:
		return nil
	case replyBusy:
		return ErrBusy
	case replyRefused:
		return ErrRefused
	default:
		return fmt.Errorf("hook message refused: %q", strings.TrimSpace(reply))
	}
}

// Spool appends m to the agent's spool file (STATE/hooks/AGENT.spool.jsonl,
// 0600 in a 0700 dir), under an exclusive lock so that concurrent hooks
// never interleave lines.
func Spool(stateDir string, m Message) error {
	path, err := state.NewLayout(stateDir).HookSpool(m.Agent)
	if err != nil {
		return err
	}
	if m.At.IsZero() {
		m.At = time.Now()
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode hook message: %w", err)
	}
	f, err := openLocked(stateDir, path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append to spool: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync spool: %w", err)
	}
	return nil
}

// openLocked opens the spool for appending (never through a symbolic
// link, in a hooks/ directory that is not one) and locks it; if Drain
// removed the file while we waited for the lock, it opens the new one.
func openLocked(stateDir, path string) (*os.File, error) {
	for range 5 {
		f, err := safefile.OpenAppend(stateDir, path)
		if err != nil {
			return nil, fmt.Errorf("open spool: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock spool: %w", err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("open spool: file keeps being replaced")
}

// Drain reads every agent's spool file under STATE/hooks, removes them and
// returns their messages, file by file (by name) in the order of their
// lines, each with its place (Message.Spooled): a line's own time is not
// believed over the file's order. A line that does not parse (a torn write
// by a killed hook) is skipped and counted in skipped. A spool that is a
// symbolic link, or not a regular file, is never read nor removed: the
// others are drained and the error names it.
func Drain(stateDir string) (msgs []Message, skipped int, err error) {
	dir := state.NewLayout(stateDir).HookSpools()
	if fi, lerr := os.Lstat(dir); lerr == nil && !fi.IsDir() {
		return nil, 0, fmt.Errorf("hook spools: %s is not a directory (a symbolic link?): not read", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.spool.jsonl"))
	if err != nil {
		return nil, 0, fmt.Errorf("list spools: %w", err)
	}
	sort.Strings(files)
	var errs []error
	for _, path := range files {
		got, bad, err := drainFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs, skipped = append(msgs, got...), skipped+bad
	}
	return msgs, skipped, errors.Join(errs...)
}

func drainFile(path string) ([]Message, int, error) {
	f, err := safefile.Open(path, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open spool: %w", err)
	}
	defer f.Close()
	// Under the writers' lock: read everything, then remove the file, so a
	// hook appending now waits and then writes to a fresh file.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, 0, fmt.Errorf("lock spool: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("stat spool %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, fmt.Errorf("read spool %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return nil, 0, fmt.Errorf("remove spool: %w", err)
	}
	agent := strings.TrimSuffix(filepath.Base(path), ".spool.jsonl")
	var msgs []Message
	bad := 0
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Message
		if err := m.UnmarshalJSON(line); err != nil || m.Kind == "" {
			bad++
			continue
		}
		m.Spooled = &Spooled{File: agent, Line: len(msgs), Modified: st.ModTime()}
		msgs = append(msgs, m)
	}
	return msgs, bad, nil
}
