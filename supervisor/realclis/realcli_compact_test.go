//go:build e2e

package realclis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/internal/teamtest"
	"github.com/wardenhq/warden/supervisor/event"
)

// formatTemplate is a line only the protocol's full instructions hold (the
// preamble, and the system prompt warden gives the CLI); the reminder on
// each request does not.
const formatTemplate = "Estimated Progress: [N]%"

// TestRealClaudeProtocolSurvivesCompaction: the real Claude Code compacts
// its context (auto-compaction, its threshold lowered), which drops the
// first prompt and the preamble in it. The fake model answers a checkpoint
// request with a block only when the format's instructions are in the
// request it gets; after the compaction they are there only because warden
// put them in the system prompt (--append-system-prompt), and the agent's
// answer is recorded.
func TestRealClaudeProtocolSurvivesCompaction(t *testing.T) {
	bin := realCLI(t, "claude")
	warden, err := buildWarden()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_BIN", warden)
	defer proctest.AssertNone(t)

	var mu sync.Mutex
	compactions, n, answeredAfter := 0, 0, 0
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(strings.ToLower(r.Prompt), "summary of the conversation"):
			compactions++
			return fakeprovider.Answer{Text: "<summary>The user gave the assistant a task and it said ready.</summary>", InputTokens: 1000}
		case strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1"):
			if !strings.Contains(r.Body, formatTemplate) {
				return fakeprovider.Answer{Text: "I do not know what a checkpoint block looks like.", InputTokens: 60000}
			}
			n++
			if compactions > 0 && !strings.Contains(r.Body, "Say ready.") {
				answeredAfter = n // this answer's block came from the system prompt alone
			}
			return fakeprovider.Answer{InputTokens: 60000, Text: fmt.Sprintf("CHECKPOINT: T1\nStatus: implementing\n"+
				"Completed:\n- read the task\nRemaining:\n- do it\nFiles Modified: none\nEstimated Progress: %d%%\n", 10*n)}
		}
		return fakeprovider.Answer{Text: "ready", InputTokens: 60000}
	}})
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	env := seed(t, "claude", home, project, srv.URL())
	cfg := teamtest.WriteTeam(t, `checkpoint_interval = "4s"
checkpoint_timeout = "60s"
stale_warning = "2m"
stale_failure = "5m"
shutdown_timeout = "10s"
[[task]]
id = "T1"
prompt = "Say ready."
`, teamtest.Agent{Name: "claude", Mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["CI"] = home, "C.UTF-8", "false"
	env["CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"] = "3" // compact once the context holds 3 % (30 000 tokens)
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	a.Command, a.Profile, a.Dir, a.Env = []string{bin}, "claude", project, env

	team, out, wait := startTeamCfg(t, cfg)
	waitForD(t, "a checkpoint answered after a compaction, and recorded", 90*time.Second, func() bool {
		mu.Lock()
		want := answeredAfter
		mu.Unlock()
		return want > 0 && countEvents(eventsOf(t, cfg), event.CheckpointReceived, "claude") >= want
	})
	team.Force()
	wait()
	want := fmt.Sprintf("CHECKPOINT: T1 - implementing (%d%%)", 10*answeredAfter)
	if !strings.Contains(out.String(), want) {
		t.Errorf("the answer after the compaction (%q) was not recorded; stdout:\n%s", want, out.String())
	}
}

// systemText is what a request to the model carries outside its messages:
// Anthropic's system, OpenAI's instructions and developer input, Chat
// Completions' system messages, Gemini's systemInstruction — where a CLI keeps instructions across a compaction.
func systemText(r fakeprovider.Request) string {
	var body struct {
		System       json.RawMessage `json:"system"`
		Instructions string          `json:"instructions"`
		Input        []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
		SystemInstruction json.RawMessage `json:"systemInstruction"`
		Messages          []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(r.Body), &body) != nil {
		return ""
	}
	parts := []string{string(body.System), body.Instructions, string(body.SystemInstruction)}
	for _, m := range body.Messages { // Chat Completions (OpenCode, Qwen Code)
		if m.Role == "system" {
			parts = append(parts, string(m.Content))
		}
	}
	for _, in := range body.Input {
		if in.Role == "developer" || in.Role == "system" {
			parts = append(parts, string(in.Content))
		}
	}
	return strings.Join(parts, "\n")
}
