//go:build !e2e

package session

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
)

// copilotScreen draws a Copilot CLI screen: the transcript rows, then its
// footer — " ◎ Working · 48 B esc esc interrupt" while a turn runs.
func copilotScreen(rows []string, working bool) string {
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[2J\x1b[H")
	for _, r := range rows {
		b.WriteString(r + "\r\n")
	}
	b.WriteString("\x1b[46;1H" + strings.Repeat("─", 100) + "\r\n❯ \r\n" + strings.Repeat("─", 100) + "\r\n")
	if working {
		b.WriteString(" ◎ Working · 48 B esc esc interrupt")
	} else {
		b.WriteString(" / commands · ? help")
	}
	return b.String()
}

// A TUI that stops drawing mid-answer while it shows its turn running (a
// loaded machine: Copilot CLI drew "Status: implementi" and then nothing
// for more than two settles, load 29 on 2 cores) shows a block without its
// last lines. It is not rejected while the turn runs: the answer is
// recorded once it is drawn whole, and the agent is never told that its
// answer was wrong (it was warden that read it too soon). A block still
// incomplete once the turn is over is rejected then.
func TestABlockReadWhileTheTurnRunsIsNotRejected(t *testing.T) {
	head := []string{" ❯ CHECKPOINT REQUEST: T1 (answer with your checkpoint block)", "", " ● CHECKPOINT: T1", "   Status: implementing"}
	whole := append(append([]string{}, head...), "   Completed:", "   - read the task", "   Remaining:", "   - write the parser",
		"   Files Modified: none", "   Estimated Progress: 10%")
	for _, c := range []struct {
		name       string
		then       []string
		records    int
		rejections int
	}{
		{"drawn whole after the pause", whole, 1, 0},
		{"still incomplete when the turn ended", head, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBench(t, Config{Profile: "copilot"})
			b.s.Write([]byte(copilotScreen(head, true)))
			b.advance(3 * time.Second) // settles come and go; the turn still shows
			if n := len(b.r.named(event.CheckpointRejected)); n != 0 {
				t.Fatalf("%d checkpoint_rejected while the turn ran", n)
			}
			b.s.Write([]byte(copilotScreen(c.then, false)))
			b.advance(3 * time.Second)
			if n := map[bool]int{true: 1}[b.s.latest.cp != nil]; n != c.records {
				t.Errorf("%d records, want %d", n, c.records)
			}
			if n := len(b.r.named(event.CheckpointRejected)); n != c.rejections {
				t.Errorf("%d checkpoint_rejected, want %d", n, c.rejections)
			}
		})
	}
}
