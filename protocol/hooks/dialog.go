package hooks

import (
	"encoding/json"
	"strings"
)

// Kinds of hook message that say a CLI waits on a person.
const (
	// KindClaudePermission is Claude Code's PermissionRequest hook: fired as
	// the permission dialog is drawn (default permission mode).
	KindClaudePermission = "claude-permission-request"
	// KindClaudeNotification is Claude Code's Notification hook:
	// permission_prompt, elicitation_dialog, agent_needs_input, idle_prompt.
	KindClaudeNotification = "claude-notification"
	// KindGeminiNotification is Gemini CLI's Notification hook (ToolPermission).
	KindGeminiNotification = "gemini-notification"
)

// Dialog kinds, as protocol/profile names them.
const (
	dialogPermission = "permission"
	dialogQuestion   = "question"
	dialogOther      = "other"
)

// Waiting reads a hook message that says the CLI waits on a person: the
// dialog's kind (permission, question, other) and what it asks. ok is false
// for every other message, and for Claude's idle_prompt (the agent waits at
// its input prompt: a turn ended, nothing to answer).
func Waiting(kind string, payload []byte) (dialogKind, text string, ok bool) {
	var p struct {
		Type      string `json:"notification_type"`
		Message   string `json:"message"`
		ToolName  string `json:"tool_name"`
		ToolInput struct {
			Command     string `json:"command"`
			Description string `json:"description"`
			FilePath    string `json:"file_path"`
		} `json:"tool_input"`
		Details struct {
			Title   string `json:"title"`
			Command string `json:"command"`
		} `json:"details"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return "", "", false
	}
	switch kind {
	case KindClaudePermission:
		what := firstOf(p.ToolInput.Command, p.ToolInput.FilePath, p.ToolInput.Description)
		return dialogPermission, joinNonEmpty(": ", "approve "+firstOf(p.ToolName, "a tool"), what), true
	case KindClaudeNotification:
		switch p.Type {
		case "permission_prompt":
			return dialogPermission, p.Message, true
		case "elicitation_dialog":
			return dialogQuestion, p.Message, true
		case "agent_needs_input":
			return dialogOther, p.Message, true
		}
	case KindGeminiNotification:
		if p.Type == "ToolPermission" {
			return dialogPermission, joinNonEmpty(": ", p.Message, firstOf(p.Details.Command, p.Details.Title)), true
		}
		if p.Type != "" {
			return dialogOther, p.Message, true
		}
	}
	return "", "", false
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
