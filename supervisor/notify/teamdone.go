package notify

import (
	"encoding/json"
	"fmt"
	"strings"
)

// teamDoneText is what a team_done notification says, from the event's
// counts: "3/3 tasks complete, exit 0", with the failed ones and how the
// run ended ("1/3 tasks complete, 1 failed, exit 1", "stopped, exit 130").
func teamDoneText(line []byte) string {
	var f struct {
		ExitCode *int `json:"exit_code"`
		Complete int  `json:"tasks_complete"`
		Failed   int  `json:"tasks_failed"`
		Tasks    int  `json:"tasks"`
		Report   struct {
			Run struct {
				Ended string `json:"ended"`
				Why   string `json:"why"`
			} `json:"run"`
		} `json:"report"`
	}
	_ = json.Unmarshal(line, &f)
	var parts []string
	if f.Tasks > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d %s complete", f.Complete, f.Tasks, plural(f.Tasks, "task", "tasks")))
		if f.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%d failed", f.Failed))
		}
	} else {
		parts = append(parts, "no tasks")
	}
	if f.Report.Run.Ended == "stopped" {
		parts = append(parts, "stopped")
	}
	if f.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *f.ExitCode))
	}
	return strings.Join(parts, ", ")
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
