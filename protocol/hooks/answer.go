package hooks

// Answer returns the agent's answer carried by a hook message of kind: the
// last assistant message of a turn (Claude's Stop, Codex's notify, Gemini's
// AfterAgent). ok is false for kinds that carry no answer and for Codex's
// thread-title side turn.
func Answer(kind string, payload []byte) (text string, ok bool) {
	switch kind {
	case KindClaudeStop:
		return ClaudeStop(payload), true
	case KindGeminiAfterAgent:
		return GeminiAfterAgent(payload), true
	case KindCodexNotify:
		text, _, title := CodexNotify(payload)
		return text, !title
	}
	return "", false
}
