//go:build e2e

package runner

import (
	"os/exec"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// TreeRSS counts what an agent's whole tree holds — the agent and the
// child it started — and nothing outside it; a tree that is gone has no
// entry.
func TestTreeRSSCountsTheWholeTree(t *testing.T) {
	const hold, child = 64, 48 // MB
	p, out := start(t, fakeConfig("memory:hold=64:child=48"))
	out.waitFor(t, "holding 64 MB")
	outsider := exec.Command("sleep", "30") // another process of ours: not counted
	outsider.Env = fakeagent.Env("unused")
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	defer outsider.Wait()
	defer outsider.Process.Kill()

	got, err := TreeRSS([]int{p.Pid(), outsider.Process.Pid})
	if err != nil {
		t.Fatal(err)
	}
	rss, lo, hi := got[p.Pid()], int64(hold+child)<<20, int64(hold+child+400)<<20
	// Two Go test binaries' own pages come on top (more built with -race).
	if rss < lo || rss > hi {
		t.Errorf("tree RSS %d MB, want %d MB held plus the binaries' own (at most +400 MB)", rss>>20, lo>>20)
	}
	t.Logf("tree RSS %d MB (%d MB held)", rss>>20, lo>>20)
	alone, err := TreeRSS([]int{p.Pid()})
	if err != nil {
		t.Fatal(err)
	}
	// The outsider is in the test's own group and session: it leads
	// neither, so it is no tree, and no tree holds it.
	if _, ok := got[outsider.Process.Pid]; ok {
		t.Errorf("a process that leads no session or group has an entry: %v", got)
	}
	if d := alone[p.Pid()] - rss; d > 8<<20 || d < -8<<20 {
		t.Errorf("the same tree read alone: %d MB vs %d MB", alone[p.Pid()]>>20, rss>>20)
	}
	p.Signal(9)
	waitDone(t, p)
	deadline := time.Now().Add(5 * time.Second)
	for {
		gone, err := TreeRSS([]int{p.Pid()})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := gone[p.Pid()]; !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a killed tree still has an entry: %v", gone)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
