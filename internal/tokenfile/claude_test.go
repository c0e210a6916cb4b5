//go:build !e2e

package tokenfile

import (
	"path/filepath"
	"testing"
)

// Claude writes one line per content block, each with the message's whole
// usage: a message is counted once per message id and request id; a
// sub-agent's transcript beside the session's counts too, and each model's
// share is kept apart.
func TestClaudeCountsEachMessageOnceWithSubagents(t *testing.T) {
	dir := ClaudeProjectDir(t.TempDir(), "/work/my.app")
	main := filepath.Join(dir, "s1.jsonl")
	appendFile(t, main, claudeAssistant("m1", "r1", "claude-opus-5-5", 4001, 1000, 15000, 51, "text")+
		claudeAssistant("m2", "r2", "claude-opus-5-5", 29003, 0, 1000, 70, "text")+
		claudeAssistant("m2", "r2", "claude-opus-5-5", 29003, 0, 1000, 70, "tool_use")+
		claudeUser(100))
	sub := filepath.Join(dir, "s1", "subagents", "agent-a0c4.jsonl")
	appendFile(t, sub, claudeAssistant("m3", "r3", "claude-haiku-5", 6505, 0, 500, 30, "text"))
	rep := mustRead(t, NewClaude(main))
	want := Tokens{Input: 4001 + 1000 + 15000 + 29003 + 1000 + 7005, CachedInput: 15000 + 1000 + 500, CacheWrite: 1000, Output: 151}
	if rep.Tokens != want {
		t.Errorf("tokens %+v, want %+v", rep.Tokens, want)
	}
	if rep.ByModel["claude-haiku-5"] != (Tokens{Input: 7005, CachedInput: 500, Output: 30}) || len(rep.Files) != 2 || rep.Files[1] != sub {
		t.Errorf("by model %+v, files %v", rep.ByModel, rep.Files)
	}
	if filepath.Base(dir) != "-work-my-app" {
		t.Errorf("project dir %s", dir)
	}
}

func TestClaudeStatusCost(t *testing.T) {
	if d, ok := ClaudeStatusCost([]byte(`{"session_id":"s","cost":{"total_cost_usd":0.4123,"total_duration_ms":5}}`)); !ok || d != 0.4123 {
		t.Errorf("cost = %v %v", d, ok)
	}
	if _, ok := ClaudeStatusCost([]byte(`{"session_id":"s","cost":{"total_duration_ms":5}}`)); ok {
		t.Error("a status line without total_cost_usd gave a cost")
	}
}
