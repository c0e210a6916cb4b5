package land

import (
	"fmt"
	"io"
	"strings"

	"github.com/wardenhq/warden/protocol"
)

// Print writes what landed and what waits in warden's style: a LANDED:
// line for each task on the integration branch, a NOT LANDED: line for
// each that is not (what stopped the land first, with its reason's lines
// indented under it), then land_verify's verdict and base's.
func (r Result) Print(w io.Writer) {
	for _, d := range r.Landed {
		how := "merged into " + r.Branch
		if d.Already {
			how = "already on " + r.Branch
		}
		fmt.Fprintf(w, "LANDED: %s (%s %s)\n", plain(d.Task), plain(d.Branch), how)
	}
	if r.Stop != nil {
		why := strings.Split(r.Stop.Why, "\n")
		fmt.Fprintf(w, "NOT LANDED: %s - %s\n", plain(r.Stop.Task), plain(why[0]))
		for _, line := range why[1:] {
			fmt.Fprintf(w, "    %s\n", plain(line))
		}
	}
	for _, wt := range r.Waits {
		fmt.Fprintf(w, "NOT LANDED: %s - %s\n", plain(wt.Task), plain(wt.Why))
	}
	if r.Base == "" {
		fmt.Fprintln(w, "LAND: nothing to land (no complete task with a branch)")
		return
	}
	fmt.Fprintf(w, "LAND VERIFY: %s\n", plain(r.Verify))
	switch {
	case r.BaseMoved:
		fmt.Fprintf(w, "LAND: %s fast-forwarded to %s\n", plain(r.Base), plain(r.Branch))
	case r.BaseNote != "":
		fmt.Fprintf(w, "LAND: %s (worktree %s); %s %s\n", plain(r.Branch), plain(r.Path), plain(r.Base), plain(r.BaseNote))
	default:
		fmt.Fprintf(w, "LAND: %s (worktree %s); %s not moved\n", plain(r.Branch), plain(r.Path), plain(r.Base))
	}
}

// plain is text from git, a verify or a task id on one line, without
// control characters.
func plain(s string) string { return protocol.Plain(s) }
