//go:build e2e

package main

import (
	"bytes"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// keystrokeEcho types n keystrokes into a program running in a pty the
// benchmark owns and returns, per keystroke, the time until its echo is back.
func keystrokeEcho(b *testing.B, cmd *exec.Cmd, n int) []time.Duration {
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	got := make(chan byte, 4096)
	go func() {
		buf := make([]byte, 4096)
		for {
			k, err := f.Read(buf)
			for _, c := range buf[:k] {
				got <- c
			}
			if err != nil {
				close(got)
				return
			}
		}
	}()
	waitText := func(text []byte) {
		var seen []byte
		for !bytes.Contains(seen, text) {
			select {
			case c, ok := <-got:
				if !ok {
					b.Fatalf("output ended before %q; saw %q", text, seen)
				}
				seen = append(seen, c)
			case <-time.After(20 * time.Second):
				b.Fatalf("no %q; saw %q", text, seen)
			}
		}
	}
	waitText([]byte("ready"))
	time.Sleep(300 * time.Millisecond) // let warden type its first prompt first
	for drained := false; !drained; {
		select {
		case <-got:
		case <-time.After(100 * time.Millisecond):
			drained = true
		}
	}
	var lat []time.Duration
	for i := 0; i < n; i++ {
		key := byte('a' + i%26)
		t0 := time.Now()
		f.Write([]byte{key})
		waitText([]byte{key})
		lat = append(lat, time.Since(t0))
	}
	f.Write([]byte{4})
	cmd.Wait()
	return lat
}

func medianOf(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// BenchmarkWrapKeystrokeEcho: keystroke → echo on the user's terminal, bare
// vs under `warden wrap` (target: wrap adds ≤ 5 ms to the median).
func BenchmarkWrapKeystrokeEcho(b *testing.B) {
	var bare, wrapped []time.Duration
	for i := 0; i < b.N; i++ {
		argv := fakeagent.Command("rawecho")
		direct := exec.Command(argv[0], argv[1:]...)
		direct.Env = append(os.Environ(), fakeagent.Env("rawecho")...)
		bare = append(bare, keystrokeEcho(b, direct, 200)...)

		wargs := append([]string{"wrap", "--state-dir", b.TempDir(), "--", "env", "-u", "WARDEN_TEST_MAIN",
			fakeagent.EnvMode + "=rawecho"}, argv...)
		wrapped = append(wrapped, keystrokeEcho(b, warden(wargs...), 200)...)
	}
	mb, mw := medianOf(bare), medianOf(wrapped)
	b.ReportMetric(float64(mb.Microseconds())/1000, "bare-median-ms")
	b.ReportMetric(float64(mw.Microseconds())/1000, "wrap-median-ms")
	b.ReportMetric(float64((mw-mb).Microseconds())/1000, "added-ms")
}
