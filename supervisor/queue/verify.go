package queue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/runner"
)

// VerifyTimeout bounds a task's verify command.
const VerifyTimeout = 10 * time.Minute

// verifyWaitDelay is how long a verify command's output may stay open after
// the command was killed or exited (a child it left holding the pipe).
const verifyWaitDelay = 2 * time.Second

// VerifyResult is what a verify command did.
type VerifyResult struct {
	Passed  bool
	Summary string // "passed" or "exit code 1"
	Output  string // the tail of its combined output
}

// Verify runs a task's verify argv in dir, in a process group of its own;
// ctx ends it early (the team is stopping). When it ends, its whole group is
// killed: a verify that started a server, or left a child holding its
// output, never holds warden.
func Verify(ctx context.Context, argv []string, dir string) VerifyResult {
	return VerifyIn(ctx, argv, dir, nil)
}

// VerifyIn is Verify in box (nil: none): the command starts inside it, and
// when it ends the box is closed, which kills everything it started — what
// left its process group too.
func VerifyIn(ctx context.Context, argv []string, dir string, box runner.CommandBox) VerifyResult {
	return VerifyWithin(ctx, argv, dir, box, VerifyTimeout)
}

// VerifyWithin is VerifyIn bounded by timeout instead of VerifyTimeout
// (the team's land_verify_timeout).
func VerifyWithin(ctx context.Context, argv []string, dir string, box runner.CommandBox, timeout time.Duration) VerifyResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	runner.InGroup(cmd, syscall.SIGKILL, verifyWaitDelay)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	var err error
	if box != nil {
		defer box.Close() // after its group: what left the group dies with the box
		err = box.Start(cmd)
	} else {
		err = cmd.Start()
	}
	if err == nil {
		err = cmd.Wait()
	}
	runner.KillGroup(cmd) // what it left in its group
	tail := out.String()
	if len(tail) > 4000 {
		tail = "…" + tail[len(tail)-4000:]
	}
	if err == nil || errors.Is(err, exec.ErrWaitDelay) {
		// ErrWaitDelay: it exited 0, and a child it left held its output.
		return VerifyResult{Passed: true, Summary: "passed", Output: tail}
	}
	summary := err.Error()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		summary = "stopped: " + ctx.Err().Error()
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		summary = fmt.Sprintf("exit code %d", ee.ExitCode())
	}
	return VerifyResult{Summary: summary, Output: tail}
}

// Feedback is what a failed verify tells the agent.
func (v VerifyResult) Feedback(task string, argv []string) string {
	return fmt.Sprintf("VERIFY FAILED for %s: `%s` ended with %s. Its output:\n%s\nFix this, then answer with a new checkpoint block.",
		task, strings.Join(argv, " "), v.Summary, strings.TrimSpace(v.Output))
}
