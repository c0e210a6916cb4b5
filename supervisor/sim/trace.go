package sim

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sortByTime orders trace lines by the simulated seconds they start with.
func sortByTime(lines []string) {
	at := func(s string) float64 {
		f, _ := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(s)[0], "s"), 64)
		return f
	}
	sort.SliceStable(lines, func(i, j int) bool { return at(lines[i]) < at(lines[j]) })
}

// restartCtx bounds a person's warden restart.
func (w *World) restartCtx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	go func() { <-w.done; cancel() }()
	return ctx
}

// readEventsTail reads what events.jsonl gained (for the watchdog).
func (w *World) readEventsTail(int) { w.readEvents() }

// collapse folds a run of lines that say the same thing (their times
// aside) into its first line and a count: a storm is one line.
func collapse(lines []string) []string {
	what := func(s string) string {
		if f := strings.Fields(s); len(f) > 1 {
			return strings.Join(f[1:], " ")
		}
		return s
	}
	var out []string
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && what(lines[j]) == what(lines[i]) {
			j++
		}
		out = append(out, lines[i])
		if j-i > 1 {
			out = append(out, fmt.Sprintf("          … the same %d more times, until %s", j-i-1, strings.Fields(lines[j-1])[0]))
		}
		i = j
	}
	return out
}
