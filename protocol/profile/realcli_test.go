//go:build e2e

package profile

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeprovider"
)

// The model's answers: a block for each checkpoint request, an echo of the
// long text's size, and READY for anything else.
var requestRe = regexp.MustCompile(`CHECKPOINT REQUEST: (T\d+)`)

func answer(req fakeprovider.Request) fakeprovider.Answer {
	if m := requestRe.FindAllStringSubmatch(req.Prompt, -1); m != nil {
		task := m[len(m)-1][1]
		return fakeprovider.Answer{Text: fmt.Sprintf("CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- step one\n"+
			"Remaining:\n- step two\nFiles Modified: a.go\nEstimated Progress: 40%%\nResume: answered %s", task, task)}
	}
	if strings.Contains(req.Prompt, "END-OF-LONG-TEXT") {
		return fakeprovider.Answer{Text: "LONG TEXT RECEIVED"}
	}
	return fakeprovider.Answer{Text: "READY. Waiting for checkpoint requests."}
}

// longText is 3 KB over many lines.
func longText() string {
	var b strings.Builder
	for i := 1; b.Len() < 3000; i++ {
		fmt.Fprintf(&b, "line %02d of the long text: the quick brown fox jumps over the lazy dog\n", i)
	}
	b.WriteString("END-OF-LONG-TEXT")
	return b.String()
}

// answered reports whether the CLI drew text on screen outside what was typed.
func answered(p *Profile, s Screen, text string) bool {
	if p.tui == nil {
		return strings.Contains(strings.Join(s.Rows(), "\n"), text)
	}
	v := p.tui.view(s.Rows())
	for _, i := range v.own() {
		if strings.Contains(v.rows[i], text) {
			return true
		}
	}
	return false
}

func TestRealClaude(t *testing.T) { t.Parallel(); testRealCLI(t, "claude") }
func TestRealCodex(t *testing.T)  { t.Parallel(); testRealCLI(t, "codex") }

// TestRealCodexOnItsAppServer: the same with Codex's TUI attached to its
// app-server (codex --remote), as warden runs it by default.
func TestRealCodexOnItsAppServer(t *testing.T) { t.Parallel(); testRealCLI(t, "codex+app-server") }
func TestRealGemini(t *testing.T)              { t.Parallel(); testRealCLI(t, "gemini") }
func TestRealOpenCode(t *testing.T) {
	t.Parallel()
	testRealCLI(t, "opencode")
}
func TestRealQwen(t *testing.T)    { t.Parallel(); testRealCLI(t, "qwen") }
func TestRealCopilot(t *testing.T) { t.Parallel(); testRealCLI(t, "copilot") }

// testRealCLI: wait Ready, submit a prompt, a 3 KB multi-line text and 10
// checkpoint requests, each at a turn boundary: every one reaches the
// provider exactly once and its answer is drawn; then quit, and nothing
// of the CLI is left (no Codex daemon either).
func testRealCLI(t *testing.T, cli string) {
	s := startCLI(t, cli, answer)
	s.waitScreen("ready prompt", cliStartWait, s.p.Ready)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	submit := func(text, marker, reply string) {
		t.Helper()
		s.waitScreen("turn boundary", 30*time.Second, s.p.TurnEnded)
		if err := s.p.Submit(ctx, s.ptmx, s.screen, text); err != nil {
			t.Fatalf("%s: submit %q: %v\nscreen:\n%s", cli, draftLine(text), err, s.screen())
		}
		s.waitScreen("answer "+reply, 30*time.Second, func(sc Screen) bool {
			return answered(s.p, sc, reply) && s.p.TurnEnded(sc)
		})
		if n := s.turns(marker); n != 1 {
			t.Fatalf("%s: %q reached the provider %d times, want 1", cli, marker, n)
		}
	}
	submit("Reply READY now.", "Reply READY now.", "READY. Waiting")
	long := longText()
	submit(long, "END-OF-LONG-TEXT", "LONG TEXT RECEIVED")
	for _, r := range s.srv.Requests() {
		if strings.Contains(r.Prompt, "END-OF-LONG-TEXT") && !strings.Contains(r.Prompt, "line 01 of the long text\n") &&
			!strings.Contains(r.Prompt, "lazy dog\nline 02") {
			t.Errorf("%s: the long text lost its lines: %.200q", cli, r.Prompt)
		}
	}
	for i := 1; i <= 10; i++ {
		task := fmt.Sprintf("T%03d", i)
		submit("CHECKPOINT REQUEST: "+task, "CHECKPOINT REQUEST: "+task, "Resume: answered "+task)
	}
	if err := s.quit(); err != nil {
		t.Fatalf("%s: quit: %v\nscreen:\n%s", cli, err, s.screen())
	}
	for _, p := range leftovers(s.marker) {
		// (an app-server the TUI was attached to is the test's own, killed
		// at its end, as warden's launcher stops it)
		if strings.Contains(p, "app-server") && !strings.HasSuffix(s.name, "+app-server") {
			t.Errorf("%s: daemon left: %s", cli, p)
		}
	}
}
