//go:build !e2e

package fakeprovider

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestAnswersAreUsedInOrderAndTheLastRepeats(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "one"}, {Text: "two"}}})
	var got []string
	for range 3 {
		_, body := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, nil)
		got = append(got, dig(decode(t, body), "content", 0, "text").(string))
	}
	if strings.Join(got, ",") != "one,two,two" {
		t.Errorf("answers = %v", got)
	}
}

func TestDecideSeesTheLastUserMessage(t *testing.T) {
	var prompts []string
	s := newTestServer(t, Script{Decide: func(r Request) Answer {
		prompts = append(prompts, string(r.Provider)+":"+r.Prompt)
		if strings.Contains(r.Prompt, "CHECKPOINT REQUEST") {
			return Answer{Text: checkpointText}
		}
		return Answer{Text: "READY"}
	}})
	_, body := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"CHECKPOINT REQUEST: T1"},
		{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"text","text":"hello"}]}]}`, nil)
	if dig(decode(t, body), "content", 0, "text") != "READY" {
		t.Errorf("reply = %s", body)
	}
	_, body = post(t, s.URL()+"/v1/responses", `{"model":"m","input":"CHECKPOINT REQUEST: T1"}`, nil)
	if dig(decode(t, body), "output", 0, "content", 0, "text") != checkpointText {
		t.Errorf("reply = %s", body)
	}
	if strings.Join(prompts, "|") != "anthropic:hello|openai:CHECKPOINT REQUEST: T1" {
		t.Errorf("prompts = %q", prompts)
	}
}

func TestUnknownPathIsNotFoundAndLogged(t *testing.T) {
	s := newTestServer(t, Script{})
	resp, _ := post(t, s.URL()+"/v2/whatever", `{}`, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d", resp.StatusCode)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Answered != "not_found" || r[0].Path != "/v2/whatever" {
		t.Errorf("requests = %+v", r)
	}
	resp, _ = post(t, s.URL()+"/v1/messages", `not json`, nil)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON status = %d", resp.StatusCode)
	}
}

func TestFillSchemaRespectsBoundsAndAlternatives(t *testing.T) {
	schema := map[string]any{"type": "OBJECT", "properties": map[string]any{
		"n":    map[string]any{"type": "number", "minimum": 5.0},
		"m":    map[string]any{"type": "integer", "maximum": 0.0},
		"list": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"alt":  map[string]any{"anyOf": []any{map[string]any{"type": "boolean"}, map[string]any{"type": "string"}}},
		"opt":  map[string]any{"type": []any{"null", "string"}},
		"c":    map[string]any{"const": "fixed"},
	}}
	got := fillSchema(schema, 0).(map[string]any)
	if got["n"] != 5.0 || got["m"] != 0.0 || got["alt"] != false || got["opt"] != "fake" || got["c"] != "fixed" ||
		len(got["list"].([]any)) != 1 {
		t.Errorf("filled = %v", got)
	}
}

// BenchmarkStreamedCheckpoint measures one streamed checkpoint answer per
// provider, end to end over loopback HTTP.
func BenchmarkStreamedCheckpoint(b *testing.B) {
	cases := []struct{ name, path, body string }{
		{"anthropic", "/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"CHECKPOINT REQUEST: T060"}]}`},
		{"openai", "/v1/responses", `{"model":"m","stream":true,"input":"CHECKPOINT REQUEST: T060"}`},
		{"gemini", "/v1beta/models/g:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"CHECKPOINT REQUEST: T060"}]}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := New(nilLogger(), Script{Answers: []Answer{{Text: checkpointText}}})
			defer s.Close()
			for b.Loop() {
				resp, err := http.Post(s.URL()+c.path, "application/json", strings.NewReader(c.body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// TestTriggerLooksOnlyAtTheNewestUserInput: warden's preamble holds the
// words "CHECKPOINT REQUEST: <task>", so a script that answers them must
// see only the newest user input, in every API: not the first prompt when
// a request brings a tool result back, not a system entry after it.
func TestTriggerLooksOnlyAtTheNewestUserInput(t *testing.T) {
	var prompts []string
	s := newTestServer(t, Script{Decide: func(r Request) Answer {
		prompts = append(prompts, r.Prompt)
		if strings.Contains(r.Prompt, "CHECKPOINT REQUEST") {
			return Answer{Text: checkpointText}
		}
		return Answer{Text: "READY"}
	}})
	pre := `Whenever you receive CHECKPOINT REQUEST: <task>, reply.`
	post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"<pasted_content id=\"1\">`+pre+`</pasted_content>"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},{"role":"system","content":"env"}]}`, nil)
	post(t, s.URL()+"/v1/responses", `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"`+pre+`"}]},
		{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`, nil)
	post(t, s.URL()+"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"`+pre+`"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"ok"}}}]}]}`, nil)
	if strings.Join(prompts, "|") != "||" {
		t.Errorf("prompts = %q, want all empty", prompts)
	}
	for _, r := range s.Requests() {
		if r.Answered != "text" || len(r.ToolResults) != 1 || r.ToolResults[0].Text != "ok" {
			t.Errorf("%s: answered %q, results %+v", r.Provider, r.Answered, r.ToolResults)
		}
	}
}
