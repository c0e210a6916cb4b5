//go:build !e2e

package tokenfile

import (
	"path/filepath"
	"testing"
)

// The newest token_count is the session's total; a model change splits it.
func TestCodexTakesTheNewestTotalPerModel(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "sessions", "2026", "11", "25", "rollout-2026-11-25T22-17-04-01a2.jsonl")
	appendFile(t, p, codexTurnContext("gpt-6")+codexTokenCount(20001, 15000, 51)+codexTokenCount(40003, 30000, 103))
	if CodexRollout(home, "01a2") != p {
		t.Fatalf("rollout = %q", CodexRollout(home, "01a2"))
	}
	c := NewCodex(p)
	if rep := mustRead(t, c); rep.Tokens != (Tokens{Input: 40003, CachedInput: 30000, Output: 103}) {
		t.Errorf("tokens %+v", rep.Tokens)
	}
	appendFile(t, p, codexTurnContext("gpt-6-luna")+codexTokenCount(50003, 30000, 110))
	rep := mustRead(t, c)
	if rep.ByModel["gpt-6"] != (Tokens{Input: 40003, CachedInput: 30000, Output: 103}) ||
		rep.ByModel["gpt-6-luna"] != (Tokens{Input: 10000, Output: 7}) {
		t.Errorf("by model %+v", rep.ByModel)
	}
}
