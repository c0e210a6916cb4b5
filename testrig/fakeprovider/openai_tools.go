package fakeprovider

import (
	"encoding/json"
	"strings"
)

// openaiTool is one entry of a Responses request's tools.
type openaiTool struct {
	Type       string `json:"type"`
	Name       string `json:"name"`
	Parameters struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	} `json:"parameters"`
}

// openaiItem is one entry of a Responses request's input.
type openaiItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

// newestInput returns the text of the last user message and the function
// call outputs that came after the model's last output item (an assistant
// message, a function call, reasoning); the prompt is "" when the newest
// input only brings tool outputs back.
func (b openaiBody) newestInput() (string, []ToolResult) {
	var s string
	if json.Unmarshal(b.Input, &s) == nil {
		return s, nil
	}
	var items []openaiItem
	_ = json.Unmarshal(b.Input, &items)
	from := 0
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.Role == "assistant" || strings.HasSuffix(it.Type, "_call") || it.Type == "reasoning" {
			from = i + 1
			break
		}
	}
	prompt, found := "", false
	var results []ToolResult
	for _, it := range items[from:] {
		switch {
		case strings.HasSuffix(it.Type, "_call_output"):
			results = append(results, ToolResult{CallID: it.CallID, Text: toolText(it.Output)})
		case it.Role == "user":
			prompt, found = userText(it.Content), true
		}
	}
	if !found {
		prompt = ""
	}
	return prompt, results
}

func userText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// shellCall returns the name and JSON arguments of a call to the shell tool
// the request declares: Codex's exec_command ({cmd, sandbox_permissions,
// justification}), or an older shell / shell_command tool with a command
// string or argv and with_escalated_permissions. Escalation is asked for
// whenever the schema allows it (unless InSandbox): that is what makes
// Codex ask. Without a
// shell tool in the request it calls exec_command.
func (b openaiBody) shellCall(t ToolCall) (name, args string) {
	var best *openaiTool
	for i := range b.Tools {
		tl := &b.Tools[i]
		props := tl.Parameters.Properties
		_, hasCmd := props["cmd"]
		_, hasCommand := props["command"]
		if tl.Type != "function" || (!hasCmd && !hasCommand) {
			continue
		}
		if best == nil || tl.Name == "exec_command" {
			best = tl
		}
	}
	if best == nil {
		return "exec_command", string(mustJSON(map[string]any{"cmd": t.Command,
			"sandbox_permissions": "require_escalated", "justification": t.Description}))
	}
	props := best.Parameters.Properties
	a := map[string]any{}
	if _, ok := props["cmd"]; ok {
		a["cmd"] = t.Command
	} else if p := props["command"]; p.Type == "array" {
		a["command"] = []string{"bash", "-lc", t.Command}
	} else {
		a["command"] = t.Command
	}
	if _, ok := props["sandbox_permissions"]; ok && !t.InSandbox {
		a["sandbox_permissions"] = "require_escalated"
	}
	if _, ok := props["with_escalated_permissions"]; ok && !t.InSandbox {
		a["with_escalated_permissions"] = true
	}
	// Codex refuses a justification without escalation ("`justification`
	// requires an explicit `sandbox_permissions`").
	if _, ok := props["justification"]; ok && !t.InSandbox {
		a["justification"] = t.Description
	}
	return best.Name, string(mustJSON(a))
}
