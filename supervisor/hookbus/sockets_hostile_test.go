//go:build !e2e

package hookbus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol/profile"
)

// logBuffer is a logger's output, safe for its goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A flood of connections beyond what the socket serves at once is one WARN
// line (with how many it stands for), not a line each.
func TestRefusedConnectionsAreOneLineWithACount(t *testing.T) {
	var log logBuffer
	s, err := Listen(hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn}), socketOf(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range maxConns + 1000 {
		c, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	time.Sleep(300 * time.Millisecond)
	if n := strings.Count(log.String(), "too many hook connections"); n != 1 || !strings.Contains(log.String(), "refused=") {
		t.Errorf("%d log lines for 1000 refused connections, want 1 with the count:\n%.2000s", n, log.String())
	}
}

// Every connection sending the longest message there is, at once, while
// nobody takes the messages: warden's memory stays within tens of MiB
// (the lines beyond the first two long ones, and the messages past the
// queue's bytes, are answered "busy" and the hook spools them).
func TestHookSocketMemoryIsBounded(t *testing.T) {
	d := connDeadline
	t.Cleanup(func() { connDeadline = d }) // after the server's Close
	connDeadline = 30 * time.Second
	s := listen(t, t.TempDir())
	line, _ := json.Marshal(map[string]string{"agent": "w1", "kind": "k", "payload_text": strings.Repeat("x", maxMessage-100)})
	line = append(line, '\n')
	runtime.GC()
	base := liveHeap()
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			runtime.GC()
			peak = max(peak, liveHeap())
		}
	}()
	var wg sync.WaitGroup
	replies := make(chan string, maxConns)
	for range maxConns {
		wg.Go(func() {
			c, err := net.Dial("unix", s.Path())
			if err != nil {
				replies <- err.Error()
				return
			}
			defer c.Close()
			// Generous: the two long lines read at once take seconds
			// under -race on a loaded machine; the test is of memory.
			c.SetDeadline(time.Now().Add(30 * time.Second))
			c.Write(line)
			r, _ := bufio.NewReader(c).ReadString('\n')
			replies <- strings.TrimSpace(r)
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(replies)
	got := map[string]int{}
	for r := range replies {
		got[r]++
	}
	grew := (peak - min(peak, base)) >> 20
	t.Logf("%d connections of %d MiB each: heap grew by %d MiB at most; replies %v", maxConns, maxMessage>>20, grew, got)
	if grew > 40 {
		t.Errorf("the hook socket held %d MiB at once, want under 40", grew)
	}
	if got["ok"] == 0 || got["busy"] == 0 {
		t.Errorf("replies %v: want some taken and the rest busy", got)
	}
}

// `warden hook claude-status` shows a gauge as one can be, 0–100 %,
// whatever the CLI reports.
func TestStatusLineGaugeIsClamped(t *testing.T) {
	state := t.TempDir()
	for payload, want := range map[string]string{
		`{"context_window":{"used_percentage":1e308}}`: "warden: 100% context\n",
		`{"context_window":{"used_percentage":-7}}`:    "warden: 0% context\n",
		`{"context_window":{"used_percentage":42.4}}`:  "warden: 42% context\n",
	} {
		var out bytes.Buffer
		RunHook([]string{profile.KindClaudeStatus}, strings.NewReader(payload), &out, inAgent(HookEnv{Agent: "w1", StateDir: state}))
		if out.String() != want {
			t.Errorf("status line for %s: %q, want %q", payload, out.String(), want)
		}
	}
}

// liveHeap is the heap the last GC found reachable (runtime/metrics'
// /gc/heap/live:bytes): what is held, not what the readers allocated while
// that GC ran — HeapAlloc after runtime.GC counts those too.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
