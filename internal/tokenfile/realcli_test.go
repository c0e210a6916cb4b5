//go:build e2e

package tokenfile_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/tokenfile"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/fakeprovider/clirun"
	"github.com/wardenhq/warden/testrig/proctest"
	"github.com/wardenhq/warden/testrig/realcli"
)

// Each real CLI, over four turns against the fake provider — one of them a
// turn of several model requests (Claude: a sub-agent started with its
// Agent tool, its own transcript; Codex and Gemini: a shell command run and
// its result sent back) — writes to its own files exactly the tokens the
// provider served: after every turn, the usage reader (the same one,
// reading only what was appended) equals the provider's ledger of the
// CLI's own requests (side calls such as titles and Gemini's router are
// in neither).
func TestRealClaudeTokensEqualServed(t *testing.T) { testRealTokens(t, "claude") }
func TestRealCodexTokensEqualServed(t *testing.T)  { testRealTokens(t, "codex") }
func TestRealGeminiTokensEqualServed(t *testing.T) { testRealTokens(t, "gemini") }

// model answers each turn "TURN k DONE", with token figures that differ
// per request; the third turn ("TOOL TURN") first calls a tool.
type model struct {
	cli string
	mu  sync.Mutex
	n   int
}

func (m *model) decide(r fakeprovider.Request) fakeprovider.Answer {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	a := fakeprovider.Answer{InputTokens: 20000 + 1000*m.n + m.n, CachedTokens: 12000 + m.n, OutputTokens: 40 + m.n}
	if m.cli == "claude" {
		a.CacheWriteTokens = 500 + m.n // only the Anthropic API reports cache writes
	}
	switch {
	case strings.Contains(r.Body, "SUBAGENT:") && !strings.Contains(r.Body, "toolu_"):
		a.Text = "SUB-AGENT ANSWER" // the sub-agent's own request: its history holds no tool call
	case strings.Contains(r.Prompt, "TOOL TURN") && m.cli == "claude":
		// Text and a tool call: two content blocks, two transcript lines
		// with one usage.
		a.Text, a.Tool = "Starting a helper.", &fakeprovider.ToolCall{Name: "Agent", Input: map[string]any{
			"description": "count files", "prompt": "SUBAGENT: count the files", "subagent_type": "general-purpose"}}
	case strings.Contains(r.Prompt, "TOOL TURN"):
		a.Tool = &fakeprovider.ToolCall{Command: "echo tool-ran", Description: "Say that the tool ran", InSandbox: true}
	default:
		a.Text = fmt.Sprintf("TURN %d DONE", turnOf(r.Body))
	}
	return a
}

// turnOf is the number of the newest "turn k" prompt in a request body.
func turnOf(body string) int {
	for k := 4; k >= 1; k-- {
		if strings.Contains(body, fmt.Sprintf("turn %d please", k)) {
			return k
		}
	}
	return 0
}

var ready = map[string]string{"claude": "/effort", "codex": "Ask Codex", "gemini": "Type your message"}

func testRealTokens(t *testing.T, cli string) {
	if _, err := realcli.Bin(cli); err != nil {
		t.Skip(err) // not installed (CI installs them)
	}
	realcli.Hold(t)
	defer proctest.AssertNone(t)
	logger := hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Warn})
	m := &model{cli: cli}
	srv := fakeprovider.New(logger, fakeprovider.Script{Decide: m.decide})
	defer srv.Close()
	args := map[string][]string{
		"claude": {"--permission-mode", "acceptEdits", "--allowedTools", "Agent"}, // the sub-agent starts unasked
		"gemini": {"--approval-mode", "yolo"},                                     // the shell command runs unasked
	}[cli]
	statusDir := t.TempDir()
	c, err := clirun.Start(clirun.Options{CLI: cli, URL: srv.URL(), Root: t.TempDir(), Args: args, Logger: logger,
		Setup: func(home, _ string) error { return claudeStatusLine(cli, home, statusDir) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	if err := c.WaitText(ready[cli], 60*time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)

	var r tokenfile.Reader
	prompts := []string{"turn 1 please", "turn 2 please", "turn 3 please: TOOL TURN", "turn 4 please"}
	for k, p := range prompts {
		if err := c.Submit(p); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitFor(fmt.Sprintf("TURN %d DONE", k+1), 90*time.Second, func(s string) bool {
			return strings.Contains(c.Transcript(), fmt.Sprintf("TURN %d DONE", k+1))
		}); err != nil {
			t.Fatal(err)
		}
		if r == nil {
			r = open(t, cli, c.Home, c.Project)
		}
		rep := waitEqual(t, r, func() tokenfile.Tokens { return toTokens(srv.Ledger().Main().Served()) }, cli)
		t.Logf("after turn %d: %d requests, %+v from %v (%d bytes read)", k+1, len(srv.Ledger().Main()), rep.Tokens, rep.Files, rep.BytesRead)
	}
	rep, _ := r.Read()
	if cli == "claude" && len(rep.Files) != 2 {
		t.Errorf("the sub-agent's transcript was not read: files %v", rep.Files)
	}
	if cli == "claude" {
		// Claude's status line carries its own price of the session.
		b, err := os.ReadFile(filepath.Join(statusDir, "status.json"))
		dollars, ok := tokenfile.ClaudeStatusCost(b)
		if err != nil || !ok || dollars <= 0 {
			t.Errorf("status line cost: %v %v %v (%.200s)", dollars, ok, err, b)
		}
		t.Logf("Claude Code's own price of the session: $%.4f", dollars)
	}
	if len(srv.Ledger().Main()) < len(prompts)+1 {
		t.Errorf("no turn of several requests: %d requests for %d turns", len(srv.Ledger().Main()), len(prompts))
	}
	if err := c.Quit(); err != nil {
		t.Error(err)
	}
}

// claudeStatusLine makes Claude Code's status line command save the JSON
// it gets in dir/status.json (the newest one).
func claudeStatusLine(cli, home, dir string) error {
	if cli != "claude" {
		return nil
	}
	// Written aside, then renamed: a read never sees the file truncated
	// by the next run of the command.
	settings := fmt.Sprintf(`{"statusLine": {"type": "command", "command": "cat > %s/status.tmp && mv %s/status.tmp %s/status.json; echo status"}}`, dir, dir, dir)
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settings), 0o600)
}

// toTokens is the ledger's sum in the usage package's form.
func toTokens(u fakeprovider.Usage) tokenfile.Tokens {
	return tokenfile.Tokens{Input: int64(u.Input), CachedInput: int64(u.CachedInput), CacheWrite: int64(u.CacheWrite), Output: int64(u.Output)}
}

// waitEqual reads until the CLI's files hold what was served (a CLI writes
// its file a moment after drawing the answer; a Claude sub-agent may still
// be answering) or fails after 10 s.
func waitEqual(t *testing.T, r tokenfile.Reader, served func() tokenfile.Tokens, cli string) tokenfile.Report {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		want := served()
		rep, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if rep.Tokens == want && want == served() {
			return rep
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's files say %+v, the provider served %+v (files %v)", cli, rep.Tokens, want, rep.Files)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// oneFile waits up to 10 s for pattern to match one file, and returns it:
// a CLI writes its transcript a moment after the
// turn it records is drawn (Claude Code once had none 0 s after a turn's
// answer was on its screen, beside a whole run).
func oneFile(t *testing.T, pattern string) string {
	t.Helper()
	var m []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		m, _ = filepath.Glob(pattern)
		if len(m) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(m) != 1 {
		t.Fatalf("files %s: %v, want one", pattern, m)
	}
	return m[0]
}

// open finds the session's files where each CLI keeps them, through the
// package's own locators, and returns its reader.
func open(t *testing.T, cli, home, project string) tokenfile.Reader {
	t.Helper()
	switch cli {
	case "claude":
		dir := tokenfile.ClaudeProjectDir(tokenfile.ClaudeConfigDir(map[string]string{"HOME": home}), project)
		f := oneFile(t, filepath.Join(dir, "*.jsonl"))
		session := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if p := tokenfile.ClaudeTranscript(filepath.Join(home, ".claude"), project, session); p != f {
			t.Fatalf("ClaudeTranscript = %s, want %s", p, f)
		}
		return tokenfile.NewClaude(f)
	case "codex":
		f := oneFile(t, filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
		thread := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		thread = thread[len(thread)-36:]
		if p := tokenfile.CodexRollout(filepath.Join(home, ".codex"), thread); p != f {
			t.Fatalf("CodexRollout = %s, want %s", p, f)
		}
		return tokenfile.NewCodex(f)
	default:
		chats := tokenfile.GeminiChats(filepath.Join(home, ".gemini"), project)
		if chats == "" {
			t.Fatalf("no chats dir for %s", project)
		}
		f := oneFile(t, filepath.Join(chats, "session-*.jsonl"))
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			SessionID string `json:"sessionId"`
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if json.Unmarshal([]byte(first), &meta) != nil || tokenfile.GeminiSession(chats, meta.SessionID) != f {
			t.Fatalf("GeminiSession(%q) = %q, want %s", meta.SessionID, tokenfile.GeminiSession(chats, meta.SessionID), f)
		}
		return tokenfile.NewGemini(f)
	}
}
