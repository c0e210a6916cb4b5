//go:build !e2e

package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// warden's own log rotates like an agent's, written from many goroutines.
func TestRotatingLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "warden.log")
	l, err := OpenRotatingLog(path, 1000, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("x"), 99)
	line = append(line, '\n')
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				l.Write(line)
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l.Write(line) // after Close: dropped
	total := 0
	for _, p := range []string{path, path + ".1", path + ".2"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fi.Size() > 1000 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %v", p, fi.Size(), fi.Mode().Perm())
		}
		total += int(fi.Size())
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Errorf("more than 2 old files kept")
	}
	if total != 3000 { // 40 lines of 100 bytes, of which the oldest 1000 rotated away
		t.Errorf("%d bytes kept, want 3000", total)
	}
}
