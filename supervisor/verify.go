package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// verifyTimeout bounds a task's verify command.
const verifyTimeout = 10 * time.Minute

// verifyResult is what a verify command did.
type verifyResult struct {
	passed  bool
	summary string // "passed" or "exit code 1"
	output  string // the tail of its combined output
}

// runVerify runs a task's verify argv in the agent's dir; ctx ends it early
// (the team is stopping).
func runVerify(ctx context.Context, argv []string, dir string) verifyResult {
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	tail := out.String()
	if len(tail) > 4000 {
		tail = "…" + tail[len(tail)-4000:]
	}
	if err == nil {
		return verifyResult{passed: true, summary: "passed", output: tail}
	}
	summary := err.Error()
	if ee, ok := err.(*exec.ExitError); ok {
		summary = fmt.Sprintf("exit code %d", ee.ExitCode())
	}
	return verifyResult{summary: summary, output: tail}
}

// feedback is what a failed verify tells the agent.
func (v verifyResult) feedback(task string, argv []string) string {
	return fmt.Sprintf("VERIFY FAILED for %s: `%s` ended with %s. Its output:\n%s\nFix this, then answer with a new checkpoint block.",
		task, strings.Join(argv, " "), v.summary, strings.TrimSpace(v.output))
}
