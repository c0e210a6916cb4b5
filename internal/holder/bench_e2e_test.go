//go:build e2e

package holder

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

// BenchmarkDrainFlood measures the holder's drain: an agent floods 16 MiB
// through its pty while no client holds the master; the time is from its
// start to its exit, which comes only as fast as the holder reads.
// BenchmarkRunnerFlood is the same flood read by runner, for comparison.
//
// go test -tags e2e -run '^$' -bench Flood -benchtime 10x ./internal/holder/
func BenchmarkDrainFlood(b *testing.B) {
	defer proctest.AssertNone(b)
	s := serve(b, nil)
	defer s.end(b)
	c, err := Dial(testLog, s.socket)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.SetBytes(16 << 20)
	for b.Loop() {
		if _, err := c.Start(ctx(b), fake("flood:16")); err != nil {
			b.Fatal(err)
		}
		select {
		case ev := <-c.Events():
			if ev.Agent.Exit == nil || ev.Agent.Exit.Code != 0 {
				b.Fatalf("event %+v", ev)
			}
		case <-time.After(60 * time.Second):
			b.Fatal("the flood did not end in 60 s")
		}
	}
}

// BenchmarkAdoptFullRing measures one adoption of an agent whose ring is
// full (1 MiB of output read while no client held its master): the
// client's Dial and Adopt, up to the master and the bytes in its hands.
func BenchmarkAdoptFullRing(b *testing.B) {
	defer proctest.AssertNone(b)
	s := serve(b, nil)
	defer s.end(b)
	c, err := Dial(testLog, s.socket)
	if err != nil {
		b.Fatal(err)
	}
	a, err := c.Start(ctx(b), chat())
	if err != nil {
		b.Fatal(err)
	}
	c.Close()
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fill, err := Dial(testLog, s.socket)
		if err != nil {
			b.Fatal(err)
		}
		ads, err := fill.Adopt(ctx(b), a.ID)
		if err != nil {
			b.Fatal(err)
		}
		done := filepath.Join(dir, strconv.Itoa(i))
		ads[0].Master.Write([]byte("burst 40000 " + done + "\r"))
		fill.Close()
		if !waitUntil(time.Now().Add(30*time.Second), func() bool { _, err := os.Stat(done); return err == nil }) {
			b.Fatal("the burst did not end in 30 s")
		}
		b.StartTimer()
		cl, err := Dial(testLog, s.socket)
		if err != nil {
			b.Fatal(err)
		}
		ads, err = cl.Adopt(ctx(b), a.ID)
		if err != nil || len(ads[0].Output) != DefaultRingSize || ads[0].Master == nil {
			b.Fatalf("adopt: %v", err)
		}
		b.StopTimer()
		cl.Close()
	}
}

func BenchmarkRunnerFlood(b *testing.B) {
	defer proctest.AssertNone(b)
	b.SetBytes(16 << 20)
	for b.Loop() {
		req := fake("flood:16")
		p, err := runner.Start(testLog, runner.Config{Name: "flood", Argv: req.Argv, Env: fakeagent.Env("flood:16"), Output: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if e := p.Wait(); !e.Success() {
			b.Fatalf("flood: %s", e)
		}
	}
}
