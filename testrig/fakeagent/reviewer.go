package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// reviewer: a scripted reviewer of review rounds (review_by), for the
// supervisor's end to end tests:
//
//	reviewer:findings=N
//
// Its session's task is a review id (T1.review2: round 2 of T1). At each
// checkpoint request it answers that round done: rounds up to N with one
// finding ("- fix finding of round K" in Remaining), later rounds approved
// (Completed "- approved", Remaining "- nothing"). It prints
// "REVIEW-SEEN: <line>" for every review request line it is typed, and for
// the line of the diff or files it is given, so that tests can check
// what it was asked.
func init() { Register("reviewer", modeReviewer) }

func modeReviewer(args []string) int {
	findings := 0
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && k == "findings" {
			findings, _ = strconv.Atoi(v)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		switch {
		case strings.HasPrefix(line, "REVIEW REQUEST "), strings.HasPrefix(line, "The change"):
			fmt.Printf("REVIEW-SEEN: %s\n", line)
		case strings.HasPrefix(line, "CHECKPOINT REQUEST:"):
			id, _ := requestTask(line)
			round := 0
			if i := strings.LastIndex(id, ".review"); i >= 0 {
				round, _ = strconv.Atoi(id[i+len(".review"):])
			}
			completed, remaining := "approved", "nothing"
			if round <= findings {
				completed, remaining = "reviewed the change", fmt.Sprintf("fix finding of round %d", round)
			}
			fmt.Printf("CHECKPOINT: %s\nStatus: complete\nCompleted:\n- %s\nRemaining:\n- %s\nFiles Modified: none\nEstimated Progress: 100%%\n\n",
				id, completed, remaining)
		}
	}
	return 0
}
