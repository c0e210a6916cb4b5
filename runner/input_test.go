//go:build e2e

package runner

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWindowSizeIsSetBeforeStartAndResizeReachesChild(t *testing.T) {
	cfg := fakeConfig("winsize")
	cfg.Size = Size{Rows: 40, Cols: 120}
	p, c := start(t, cfg)
	c.waitFor(t, "size 40 120\r\n")
	if err := p.Resize(Size{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "size 30 100\r\n")
	if err := p.Resize(Size{}); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, fmt.Sprintf("size %d %d\r\n", DefaultRows, DefaultCols))
}

func TestDefaultWindowSize(t *testing.T) {
	_, c := start(t, fakeConfig("winsize"))
	c.waitFor(t, "size 50 200\r\n")
}

func TestConcurrentWritesDoNotInterleave(t *testing.T) {
	const writers, writes, width = 8, 40, 120
	var mu sync.Mutex
	counts := map[string]int{}
	ready, done := make(chan struct{}), make(chan struct{})
	total := 0
	cfg := fakeConfig("idle")
	cfg.Output = NewLines(func(l []byte) {
		mu.Lock()
		defer mu.Unlock()
		counts[string(l)]++
		if string(l) == "ready" {
			close(ready) // tty echo is off from here on: only the child echoes
		}
		if total++; total == writers*writes+1 { // + "ready"
			close(done)
		}
	})
	p, _ := start(t, cfg)
	waitChan(t, ready, "ready")
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		line := bytes.Repeat([]byte{byte('a' + w)}, width)
		line = append(line, '\n')
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < writes; i++ {
				if _, err := p.Write(line); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	waitChan(t, done, "all echoes")
	mu.Lock()
	defer mu.Unlock()
	for l, n := range counts {
		if l == "ready" {
			continue
		}
		if len(l) != width || strings.Count(l, l[:1]) != width {
			t.Errorf("interleaved line %q", l)
		} else if n != writes {
			t.Errorf("line of %c: %d echoes, want %d", l[0], n, writes)
		}
	}
	if len(counts) != writers+1 {
		t.Errorf("got %d distinct lines, want %d", len(counts), writers+1)
	}
}

func waitChan(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
