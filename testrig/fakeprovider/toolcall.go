package fakeprovider

import (
	"encoding/json"
	"strings"
)

// ToolCall makes an Answer one shell tool call, in the shape each API uses
// for the CLI's own shell tool (research/real-clis.md, "Approval dialogs"):
//
//   - Anthropic: a tool_use block named Bash with input {command,
//     description}, stop_reason tool_use.
//   - OpenAI Responses: a function_call of the shell tool the request
//     declares (Codex: exec_command, with cmd, sandbox_permissions
//     "require_escalated" and justification when its schema has them).
//   - Gemini: a functionCall run_shell_command with args {command,
//     description}.
//
// An escalated exec_command is what makes Codex ask; Claude Code and Gemini
// CLI ask for a network command in their default modes.
type ToolCall struct {
	// Command is the shell command line.
	Command string
	// Description is what the call says it does: Claude's and Gemini's
	// description, Codex's justification (shown as the dialog's Reason).
	Description string
	// InSandbox asks Codex for no escalation: it runs the command in its
	// sandbox without asking.
	InSandbox bool
	// Name and Input, when Name is set, make the call one to another tool
	// of the CLI's with Input as its arguments, in place of the shell
	// (Anthropic only: Claude Code's Agent tool starts a sub-agent).
	Name  string
	Input map[string]any
}

// ToolResult is one tool result a request carried back to the model.
type ToolResult struct {
	// CallID is the call it answers: Anthropic's tool_use_id, OpenAI's
	// call_id, Gemini's functionResponse id (the CLI makes that up itself:
	// Gemini's API gives a call no id).
	CallID string
	// Name is the function's name (Gemini only).
	Name string
	// Text is the result as the CLI reported it: the tool_result content,
	// the function_call_output, Gemini's response output (or error).
	Text string
	// IsError is Anthropic's is_error, or a Gemini response with an error.
	IsError bool
}

// For reports whether r answers the call the server sent with id (the
// Request.ToolCallID of the request answered with it).
func (r ToolResult) For(id string) bool {
	if id == "" {
		return false
	}
	return r.CallID == id || r.Name == id || strings.HasSuffix(r.CallID, "__"+id)
}

// ResultOf returns the first tool result for the call with id that reached
// the server, and the request that carried it; ok is false while none has
// (the call is pending, was cancelled with no new turn, or the CLI never
// sent one).
func (s *Server) ResultOf(id string) (res ToolResult, carrier Request, ok bool) {
	for _, req := range s.Requests() {
		for _, r := range req.ToolResults {
			if r.For(id) {
				return r, req, true
			}
		}
	}
	return ToolResult{}, Request{}, false
}

// toolText flattens a tool result's content: a string, or a list of blocks
// with text (Anthropic text blocks, OpenAI input_text/output_text items).
func toolText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// answerKind names what reply sends: "tool_call" or "text".
func answerKind(a Answer) string {
	if a.Tool != nil {
		return "tool_call"
	}
	return "text"
}

// toolArgs is the JSON of Claude's and Gemini's shell tool input.
func (t ToolCall) toolArgs() map[string]any {
	return map[string]any{"command": t.Command, "description": t.Description}
}
