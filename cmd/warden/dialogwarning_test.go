//go:build e2e

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// answerThroughAttach types keys into agent's terminal with warden attach
// --rw, then detaches (Ctrl-\).
func answerThroughAttach(t *testing.T, team, agent string, keys string) {
	t.Helper()
	cmd := warden("attach", team, agent, "--rw")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // attached
	io.WriteString(in, keys)
	time.Sleep(300 * time.Millisecond)
	io.WriteString(in, "\x1c")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("warden attach --rw: %v", err)
	}
}

// An agent waits on a dialog (Claude Code's, drawn by the fake TUI) and a
// person answers it: through warden attach --rw on a terminal, through
// warden send --force or warden answer with stdout piped. The WARNING is
// printed once and says how to answer it; on a terminal the log's WARN
// that repeats it goes to logs/warden.log only (it was the second copy a
// person read), piped it stays on stderr; a DIALOG CLOSED line says when
// it closed and through what (warden answer's own DIALOG ANSWERED line
// instead), and agent_resumed names the way (via).
func TestDialogWarningOnceThenAnswered(t *testing.T) {
	for _, c := range []struct {
		name     string
		terminal bool
		answer   func(t *testing.T, team string)
		via, how string
	}{
		{"terminal, attach --rw", true, func(t *testing.T, team string) { answerThroughAttach(t, team, "w", "\r") },
			"attach", "answered through warden attach --rw"},
		{"piped, send --force", false, func(t *testing.T, team string) {
			if out, errOut, code := wardenCmd("send", "--force", team, "w", "--", "y"); code != 0 {
				t.Fatalf("warden send --force: exit %d\n%s%s", code, out, errOut)
			}
		}, "send", "answered through warden send --force"},
		{"piped, warden answer", false, func(t *testing.T, team string) {
			if out, errOut, code := wardenCmd("answer", team, "w", "allow-once"); code != 0 {
				t.Fatalf("warden answer: exit %d\n%s%s", code, out, errOut)
			}
		}, "answer", ""}, // its own DIALOG ANSWERED line, no DIALOG CLOSED
	} {
		t.Run(c.name, func(t *testing.T) {
			defer proctest.AssertNone(t)
			dialogLog := filepath.Join(t.TempDir(), "dialog.log")
			team := opsTeam(t, "checkpoint_interval = \"10m\"\nstale_warning = \"11m\"\non_dialog = \"deny\"\ndialog_timeout = \"1h\"",
				opsAgent{name: "w", mode: "tui-dialog:" + dialogLog, profile: "claude", task: true})
			cmd := warden("run", team)
			cmd.Env = withoutEnv(cmd.Env, "CI", "WARDEN_LOG_LEVEL")
			var stdout, stderr lockedBuffer
			var p *ptyTerm
			if c.terminal {
				p = startOnPty(t, cmd, 160, 40, nil)
			} else {
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
			}
			waitEvents(t, team, "agent_waiting", "w", 1)
			time.Sleep(1200 * time.Millisecond) // time for a second copy, were there one
			c.answer(t, team)
			resumed := waitEvents(t, team, "agent_resumed", "w", 1)
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Signal(os.Interrupt)
			var out, errOut string
			if c.terminal {
				if code := p.wait(t, 30*time.Second); code != 130 {
					t.Errorf("exit %d after Ctrl-C, want 130", code)
				}
				// The lines as the person reads them: without the footer's
				// erase (cursor up, clear) before each.
				out = regexp.MustCompile(`\x1b\[\d+A\r\x1b\[J`).ReplaceAllString(strings.ReplaceAll(p.output(), "\r\n", "\n"), "")
				errOut = out
			} else {
				if err := cmd.Wait(); exitCode(err) != 130 {
					t.Errorf("exit %d after Ctrl-C, want 130", exitCode(err))
				}
				out, errOut = stdout.String(), stderr.String()
			}
			if n := strings.Count(out, "WARNING: w waits for a person"); n != 1 {
				t.Errorf("%d WARNING lines for the one dialog, want 1:\n%s", n, out)
			}
			warning := regexp.MustCompile(`(?m)^WARNING: w waits for a person \(permission\): Bash command; answer it: warden answer w allow-once\|deny, ` +
				`or in its terminal: warden attach --rw w, or warden denies it in 1h0m0s \(on_dialog = "deny"\)(  \[w \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\])?$`)
			if !warning.MatchString(out) {
				t.Errorf("no WARNING that says how to answer the dialog:\n%s", out)
			}
			closed := regexp.MustCompile(`(?m)^DIALOG CLOSED: w's dialog \(permission: Bash command\) closed after \d+s, ` +
				regexp.QuoteMeta(c.how) + `(  \[w \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\])?$`)
			switch {
			case c.how == "" && (strings.Contains(out, "DIALOG CLOSED") || !strings.Contains(out, "DIALOG ANSWERED: w's dialog")):
				t.Errorf("an answer through warden answer: want its DIALOG ANSWERED line and no DIALOG CLOSED:\n%s", out)
			case c.how != "" && (!closed.MatchString(out) || strings.Index(out, "DIALOG CLOSED") < strings.Index(out, "WARNING: w waits")):
				t.Errorf("no DIALOG CLOSED line after the WARNING, %q:\n%s", c.how, out)
			}
			if c.terminal == strings.Contains(errOut, "agent waits on a dialog") {
				t.Errorf("terminal %v: the log's WARN repeating the WARNING is on stderr: %v, want %v:\n%s",
					c.terminal, !c.terminal, !c.terminal, errOut)
			}
			log, _ := os.ReadFile(filepath.Join(stateOf(team), "logs", "warden.log"))
			if !regexp.MustCompile(`\[WARN\] .*agent waits on a dialog: .*printed=true`).Match(log) {
				t.Errorf("logs/warden.log lacks the dialog's WARN:\n%s", log)
			}
			if resumed[0]["via"] != c.via {
				t.Errorf("agent_resumed %v: via want %q", resumed[0], c.via)
			}
			if b, _ := os.ReadFile(dialogLog); !strings.Contains(string(b), "APPROVED") {
				t.Errorf("the fake's dialog was not answered:\n%s", b)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer a process's output is copied into while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
