package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkBuild: the report of a run of 50,000 events after earlier runs'
// 200,000 (an events.jsonl of 75 MB) — what team_done waits for at the end
// of a long night.
func BenchmarkBuild(b *testing.B) {
	c := newCrafted(b, "finished", false, 90000)
	c.event(-1000, "run_started", "", "", "run_id", "R0", "how", "new")
	pad := fmt.Sprintf("%0200d", 0)
	for i := range 200_000 {
		c.event(-999+i%999, "checkpoint_requested", "a1", "T1", "note", pad)
	}
	c.event(0, "run_started", "", "", "run_id", "R1", "how", "new")
	for i := range 50_000 {
		c.event(i%9000+1, "checkpoint_received", "a1", "T1", "checkpoint_id", fmt.Sprint("c", i), "note", pad)
	}
	c.build(90000)
	for b.Loop() {
		if r := c.report(90000); r.Summary.Checkpoints != 50_000 {
			b.Fatalf("%d checkpoints", r.Summary.Checkpoints)
		}
	}
	if fi, err := os.Stat(filepath.Join(c.root, "events.jsonl")); err == nil {
		b.ReportMetric(float64(fi.Size())/1e6, "MB")
	}
}
