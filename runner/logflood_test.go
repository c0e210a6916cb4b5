//go:build e2e

package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// numflood:N writes N MiB of numbered 64-byte lines in 64 KiB writes as fast
// as it can: unlike "flood", every part of the stream is distinct, so a log
// that lost or reordered a piece cannot match it by chance.
func init() { fakeagent.Register("numflood", modeNumflood) }

func modeNumflood(args []string) int {
	total := 1 << 20
	if len(args) > 0 {
		if _, err := fmt.Sscan(args[0], &total); err != nil {
			return 98
		}
		total <<= 20
	}
	buf := make([]byte, 0, 64<<10)
	for line := 0; total > 0; {
		buf = buf[:0]
		for len(buf) < cap(buf) && total > 0 {
			buf = fmt.Appendf(buf, "%010d %052d\n", line, line)
			line++
			total -= 64
		}
		if _, err := os.Stdout.Write(buf); err != nil {
			return 99
		}
	}
	return 0
}

// tee keeps every byte of Output.
type tee struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tee) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, b...)
	t.mu.Unlock()
	return len(b), nil
}

func TestLogRotationUnderAFloodingAgent(t *testing.T) {
	const floodMiB, maxSize, keep = 20, 1 << 20, 3
	dir := t.TempDir()
	out := &tee{}
	cfg := fakeConfig(fmt.Sprintf("numflood:%d", floodMiB))
	cfg.LogPath, cfg.LogMaxSize, cfg.LogKeep = filepath.Join(dir, "agent.log"), maxSize, keep
	cfg.Output = out
	cfg.OnLogError = func(err error) { t.Errorf("OnLogError(%v)", err) }
	p, _ := start(t, cfg)
	if exit := waitDoneWithin(t, p, time.Minute); !exit.Success() {
		t.Fatalf("exit %v", exit)
	}
	stream := out.buf
	if want := floodMiB << 20 * 65 / 64; len(stream) != want { // the pty adds \r before \n
		t.Fatalf("relayed %d bytes, want %d", len(stream), want)
	}

	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"agent.log", "agent.log.1", "agent.log.2", "agent.log.3"}; !slices.Equal(names, want) {
		t.Fatalf("files %q, want %q", names, want)
	}
	// Oldest first, the kept files are exactly the end of the stream.
	var kept []byte
	for _, name := range []string{"agent.log.3", "agent.log.2", "agent.log.1", "agent.log"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > maxSize {
			t.Errorf("%s: %d bytes, over the maximum %d", name, len(b), maxSize)
		}
		if name != "agent.log" && len(b) <= maxSize-readBufSize {
			t.Errorf("%s: %d bytes, rotated before it was full (max %d, chunks ≤ %d)", name, len(b), maxSize, readBufSize)
		}
		kept = append(kept, b...)
	}
	if len(kept) > (keep+1)*maxSize {
		t.Errorf("%d bytes on disk, over (keep+1)×max = %d", len(kept), (keep+1)*maxSize)
	}
	if !bytes.HasSuffix(stream, kept) {
		t.Errorf("the %d bytes kept are not the end of the stream; the live file ends %q, the stream %q",
			len(kept), tail(kept, 80), tail(stream, 80))
	}
	lastLine := fmt.Sprintf("%010d %052d\r\n", floodMiB<<20/64-1, floodMiB<<20/64-1)
	if !bytes.HasSuffix(kept, []byte(lastLine)) {
		t.Errorf("the live file ends %q, want the last line %q", tail(kept, 80), lastLine)
	}
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

func TestStartRefusesASymlinkAtTheLogPath(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{target, filepath.Join(dir, "absent")} {
		cfg := fakeConfig("lines:1")
		cfg.LogPath = filepath.Join(dir, "agent.log")
		_ = os.Remove(cfg.LogPath)
		if err := os.Symlink(to, cfg.LogPath); err != nil {
			t.Fatal(err)
		}
		p, err := Start(testLogger, cfg)
		if err == nil {
			p.Wait()
			t.Fatalf("Start with a symlink to %s at the log path: no error", to)
		}
		if !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("error %q does not say the log is a symbolic link", err)
		}
	}
	if got := readFile(t, target); got != "precious" {
		t.Errorf("symlink target changed to %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling symlink's target was created: %v", err)
	}
}
