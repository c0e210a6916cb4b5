//go:build !e2e

package tokenfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// appendFile appends text to path (making it and its dir) and returns how
// many bytes it wrote.
func appendFile(t testing.TB, path, text string) int64 {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := f.WriteString(text)
	if err != nil {
		t.Fatal(err)
	}
	return int64(n)
}

func mustRead(t testing.TB, r Reader) Report {
	t.Helper()
	rep, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// claudeAssistant is an assistant transcript line as Claude Code 2.1.332
// writes it (one per content block, each with the message's usage).
func claudeAssistant(msgID, reqID, model string, in, write, read, out int, block string) string {
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":"assistant","requestId":%q,"uuid":"u-%s-%s",`+
		`"message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[{"type":%q,"text":"x"}],`+
		`"stop_reason":"end_turn","usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,`+
		`"output_tokens":%d,"service_tier":"standard"}},"timestamp":"2026-11-25T22:19:26.013Z"}`+"\n",
		reqID, msgID, block, msgID, model, block, in, write, read, out)
}

// claudeUser is a user line with a big attachment, the kind of line that
// makes most of a transcript's bytes.
func claudeUser(n int) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":%q}]},"uuid":"x"}`+"\n",
		fmt.Sprintf("%0*d", n, 0))
}

// codexTokenCount is a rollout token_count event with a running total.
func codexTokenCount(in, cached, out int) string {
	return fmt.Sprintf(`{"timestamp":"2026-11-25T22:17:05.908Z","type":"event_msg","payload":{"type":"token_count",`+
		`"info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"cache_write_input_tokens":0,"output_tokens":%d,`+
		`"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":1,"cached_input_tokens":0,`+
		`"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":2},"model_context_window":258400},"rate_limits":null}}`+"\n",
		in, cached, out, in+out)
}

func codexTurnContext(model string) string {
	return fmt.Sprintf(`{"timestamp":"2026-11-25T22:17:05.000Z","type":"turn_context","payload":{"cwd":"/p","model":%q}}`+"\n", model)
}

// geminiMessage is a chat-file gemini message with its tokens.
func geminiMessage(id, model string, in, cached, out int) string {
	return fmt.Sprintf(`{"id":%q,"timestamp":"2026-11-25T22:17:38.755Z","type":"gemini","content":"x","thoughts":[],`+
		`"tokens":{"input":%d,"output":%d,"cached":%d,"thoughts":0,"tool":0,"total":%d},"model":%q}`+"\n",
		id, in, out, cached, in+out, model)
}

const geminiMeta = `{"sessionId":"9ac5031c-f37e-47f1-9a94-45c42cd89bdd","projectHash":"846a","startTime":"2026-11-25T22:17:37.146Z","kind":"main"}` + "\n"
