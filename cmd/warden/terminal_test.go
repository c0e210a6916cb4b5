//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/testrig/proctest"
)

// withoutEnv returns cmd's environment without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, e := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(e, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// runOnPty runs cmd with stdin, stdout and stderr on one new pty, as in a
// terminal, and returns everything it wrote there.
func runOnPty(t *testing.T, cmd *exec.Cmd) (string, error) {
	t.Helper()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 160, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&out, ptmx) // until EIO: the last process holding the pty is gone
		close(done)
	}()
	err = cmd.Wait()
	<-done
	return out.String(), err
}

// The example team on a terminal: warden's own lines and no INFO log lines,
// which go to logs/warden.log; the dashboard is a footer redrawn in place.
func TestRunOnATerminalShowsOnlyWardensLines(t *testing.T) {
	defer proctest.AssertNone(t)
	team := copyExamples(t, "team.toml")
	cmd := warden("run", team)
	cmd.Env = withoutEnv(cmd.Env, "CI", "WARDEN_LOG_LEVEL")
	out, err := runOnPty(t, cmd)
	if err != nil {
		t.Fatalf("warden run on a pty: %v\n%s", err, out)
	}
	for _, line := range []string{"CHECKPOINT: T1 - complete (100%)", "TASK COMPLETE: T3 (Summarise the inputs) verify: passed"} {
		if !strings.Contains(out, line) {
			t.Errorf("the terminal lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "[INFO]") {
		t.Errorf("INFO log lines on the terminal:\n%s", out)
	}
	if !strings.Contains(out, "CHECKPOINT: T1 - complete (100%)\r\n") || stampAtEnd.MatchString(strings.ReplaceAll(out, "\r\n", "\n")) {
		t.Errorf("the lines on a terminal carry a time or an agent, or do not end where they did:\n%s", out)
	}
	if !strings.Contains(out, "== example (running)") || !strings.Contains(out, "A\r\x1b[J") {
		t.Errorf("no dashboard redrawn in place (cursor up, clear) on the terminal:\n%q", out)
	}
	log, err := os.ReadFile(filepath.Join(filepath.Dir(team), ".warden", "logs", "warden.log"))
	if err != nil || !bytes.Contains(log, []byte("[INFO]")) || !bytes.Contains(log, []byte("killing process group")) {
		t.Errorf("logs/warden.log lacks the INFO lines (%v):\n%s", err, log)
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(team), ".warden", "logs", "warden.log")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("logs/warden.log: %v, mode %v; want 0600", err, fi.Mode())
	}
}

// stampAtEnd is the end of a line of `warden run` where stdout is no
// terminal: the agent it is about, if any, and when, to the second.
var stampAtEnd = regexp.MustCompile(`(?m)  \[(?:([A-Za-z0-9._-]+) )?(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]$`)

// The same team piped: stdout holds exactly warden's lines (no escape
// sequences: the dashboard is appended), stderr the log at INFO as before.
// Each line starts as it did and ends with when it was printed and, for a
// line about an agent (a checkpoint, a task complete, its crash), which
// agent; the dashboard's rows under its first line and CHECKPOINT COMPLETE
// carry no stamp.
func TestRunPipedKeepsItsOutput(t *testing.T) {
	defer proctest.AssertNone(t)
	team := copyExamples(t, "team.toml")
	var stdout, stderr bytes.Buffer
	cmd := warden("run", team)
	cmd.Env = withoutEnv(cmd.Env, "CI", "WARDEN_LOG_LEVEL")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now().Truncate(time.Second)
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden run: %v\n%s", err, stderr.String())
	}
	end := time.Now()
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		if strings.ContainsAny(line, "\x1b\r") || strings.Contains(line, "[INFO]") {
			t.Errorf("stdout line %q: want warden's plain lines only", line)
		}
		if !progressLine(line) {
			t.Errorf("stdout line %q is none of warden's progress lines", line)
		}
		m := stampAtEnd.FindStringSubmatch(line)
		if line == "CHECKPOINT COMPLETE" || strings.HasPrefix(line, "   ") {
			if m != nil {
				t.Errorf("stdout line %q is stamped", line)
			}
			continue
		}
		if m == nil {
			t.Errorf("stdout line %q does not end with its time", line)
			continue
		}
		if at, err := time.ParseInLocation(time.DateTime, m[2], time.Local); err != nil || at.Before(start) || at.After(end) {
			t.Errorf("stdout line %q: its time is not within the run (%v to %v)", line, start, end)
		}
		agent := m[1]
		switch {
		case strings.HasPrefix(line, "WARNING: worker-2 ended") && agent != "worker-2",
			(strings.HasPrefix(line, "CHECKPOINT: ") || strings.HasPrefix(line, "TASK COMPLETE: ")) && agent != "worker-1" && agent != "worker-2",
			strings.HasPrefix(line, "== ") && agent != "":
			t.Errorf("stdout line %q names agent %q", line, agent)
		}
	}
	if !strings.Contains(stderr.String(), "[INFO]  warden.supervisor") {
		t.Errorf("stderr lacks the INFO log:\n%s", stderr.String())
	}
}

// progressLine reports whether line is one of the lines `warden run` prints.
func progressLine(line string) bool {
	for _, p := range []string{"NEW RUN: ", "CARRYING ON: ", "BOX: ", "CRASHED: ", "EXITED: ", "CHECKPOINT: ", "TASK COMPLETE: ", "TASK FAILED: ", "WARNING: ", "VERIFY FAILED: ", "== ", "   agent ", "   task ", "CHECKPOINT COMPLETE"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// Under CI a terminal is treated as a pipe: the log stays on stderr.
func TestRunOnATerminalUnderCIKeepsTheLog(t *testing.T) {
	defer proctest.AssertNone(t)
	team := copyExamples(t, "team.toml")
	cmd := warden("run", team)
	cmd.Env = append(withoutEnv(cmd.Env, "CI", "WARDEN_LOG_LEVEL"), "CI=true")
	out, err := runOnPty(t, cmd)
	if err != nil {
		t.Fatalf("warden run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "[INFO]") || strings.Contains(out, "\x1b[J") {
		t.Errorf("under CI: want the INFO log and no redrawn dashboard:\n%q", out)
	}
}

// --log-format json: every log line on stderr is a JSON object.
func TestRunLogFormatJSON(t *testing.T) {
	defer proctest.AssertNone(t)
	team := copyExamples(t, "team.toml")
	var stdout, stderr bytes.Buffer
	cmd := warden("run", "--log-format", "json", team)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden run --log-format json: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) < 5 {
		t.Fatalf("too few log lines:\n%s", stderr.String())
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["@level"] == nil || m["@message"] == nil {
			t.Errorf("log line %q is not a JSON object with @level and @message (%v)", l, err)
		}
	}
	if !strings.Contains(stdout.String(), "CHECKPOINT: T1 - complete (100%)  [") {
		t.Errorf("stdout changed with the log format:\n%s", stdout.String())
	}
	if out, err := warden("run", "--log-format", "xml", team).CombinedOutput(); exitCode(err) != 2 {
		t.Errorf("--log-format xml: exit %d, %s; want 2", exitCode(err), out)
	}
}
