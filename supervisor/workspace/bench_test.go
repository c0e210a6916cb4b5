//go:build !e2e

package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// bigRepo makes a repository of n files (100 a directory) on main, packed.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	root := newRepo(b)
	for i := range n {
		path := filepath.Join(root, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.txt", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(fmt.Sprintf("file %d\nsome content\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// As a repository of that size is (cloned, or gc'ed): packed. No auto
	// gc, which would run detached during the benchmark.
	gitT(b, root, "add", "-A")
	gitT(b, root, "-c", "gc.auto=0", "commit", "--quiet", "-m", "10k files")
	gitT(b, root, "repack", "-a", "-d", "-q")
	return root
}

// BenchmarkPrepare times, side by side in each iteration (in alternating
// order), a bare `git worktree add -b` and Prepare of a new worktree (one
// start point), on a repository of 10,000 files. Metrics per iteration:
// bare-ms, prepare-ms, over-ms (Prepare minus bare: noisy, as both are
// dominated by writing 10,000 files), and the time of each git subcommand
// Prepare ran (git-SUBCOMMAND-ms), whose sum without worktree-add is
// Prepare's own overhead.
func BenchmarkPrepare(b *testing.B) {
	benchPrepare(b, 10000, "main")
}

// BenchmarkPrepareTwoDependencies is Prepare from two start points (a
// merge of two branches with one changed file each) against a bare
// `git worktree add -b` from the first.
func BenchmarkPrepareTwoDependencies(b *testing.B) {
	benchPrepare(b, 10000, "dep1", "dep2")
}

func benchPrepare(b *testing.B, files int, from ...string) {
	root := bigRepo(b, files)
	for _, dep := range from {
		if dep != "main" {
			gitT(b, root, "checkout", "--quiet", "-b", dep, "main")
			write(b, filepath.Join(root, "d000", dep+".txt"), dep)
			gitT(b, root, "add", "-A")
			gitT(b, root, "-c", "gc.auto=0", "commit", "--quiet", "-m", dep)
		}
	}
	gitT(b, root, "checkout", "--quiet", "main")
	calls := &callTimes{}
	r := find(b, New(calls.logger()), root)
	calls.reset()
	dir := b.TempDir()
	var bare, prep time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		barePath, prepPath := filepath.Join(dir, fmt.Sprint("bare", i)), filepath.Join(dir, fmt.Sprint("prep", i))
		runBare := func() {
			start := time.Now()
			gitT(b, root, "worktree", "add", "--quiet", "-b", fmt.Sprint("bare", i), barePath, from[0])
			bare += time.Since(start)
		}
		if i%2 == 0 {
			runBare()
		}
		start := time.Now()
		if _, err := r.Prepare(context.Background(), prepPath, fmt.Sprint("warden/t/prep", i), from); err != nil {
			b.Fatal(err)
		}
		prep += time.Since(start)
		if i%2 == 1 {
			runBare()
		}
		b.StopTimer()
		for _, p := range []string{barePath, prepPath} {
			gitT(b, root, "worktree", "remove", "--force", p)
		}
		b.StartTimer()
	}
	report(b, bare, prep)
	calls.report(b)
}

func report(b *testing.B, bare, prep time.Duration) {
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(ms(bare), "bare-ms/op")
	b.ReportMetric(ms(prep), "prepare-ms/op")
	b.ReportMetric(ms(prep-bare), "over-ms/op")
}

// BenchmarkCommit100 is Commit of 100 changed files in a worktree of a
// repository of 10,000 files.
func BenchmarkCommit100(b *testing.B) {
	root := bigRepo(b, 10000)
	calls := &callTimes{}
	r := find(b, New(calls.logger()), root)
	w := prepare(b, r, filepath.Join(b.TempDir(), "T1"), "warden/t/T1", "main")
	ctx := context.Background()
	calls.reset()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for f := range 100 {
			n := (i*100 + f*97) % 10000
			write(b, filepath.Join(w.Dir, fmt.Sprintf("d%03d", n/100), fmt.Sprintf("f%05d.txt", n)), fmt.Sprint("changed ", i, "\n"))
		}
		b.StartTimer()
		if _, made, err := w.Commit(ctx, "T1: in_progress (50%)", "Completed:\n- x"); err != nil || !made {
			b.Fatal(made, err)
		}
	}
	calls.report(b)
}

// callTimes sums, from the driver's trace log, the time of each git
// subcommand.
type callTimes struct {
	mu  sync.Mutex
	sum map[string]time.Duration
}

func (c *callTimes) logger() hclog.Logger {
	c.reset()
	return hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: c, JSONFormat: true})
}

func (c *callTimes) reset() {
	c.mu.Lock()
	c.sum = map[string]time.Duration{}
	c.mu.Unlock()
}

// Write takes one JSON log line.
func (c *callTimes) Write(p []byte) (int, error) {
	var line struct {
		Msg  string        `json:"@message"`
		Args []string      `json:"args"`
		Took time.Duration `json:"took"`
	}
	if json.Unmarshal(p, &line) == nil && line.Msg == "ran" && len(line.Args) > 0 {
		name := line.Args[0]
		if len(line.Args) > 1 && name == "worktree" {
			name += "-" + line.Args[1]
		}
		c.mu.Lock()
		c.sum[name] += line.Took
		c.mu.Unlock()
	}
	return len(p), nil
}

func (c *callTimes) report(b *testing.B) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, d := range c.sum {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "git-"+name+"-ms/op")
	}
}
