package main

import "github.com/wardenhq/warden/testrig/fakeprovider"

// recording is the sidecar JSON written next to each .raw file.
type recording struct {
	CLI      string   `json:"cli"`
	Version  string   `json:"version"`
	Scenario string   `json:"scenario"`
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Command  []string `json:"command"`
	// Env lists the names of the only variables the CLI had.
	Env   []string `json:"env"`
	Bytes int      `json:"bytes"`
	// Typed lists every write to the CLI, with the output offset before it.
	Typed []typed `json:"typed"`
	// Blocks are the checkpoints a correct parser must extract, in order:
	// exactly these, no more (the preamble's placeholders and the typed
	// request must not count).
	Blocks []block `json:"blocks"`
	// UsageLimit describes the error the fake provider sent, if any.
	UsageLimit *limitInfo `json:"usage_limit,omitempty"`
	// Requests is what reached the fake provider.
	Requests []requestInfo `json:"requests"`
	// ScreenBeforeQuit is the emulated screen (scrollback first) after the
	// last answer, before the recorder typed the quit command.
	ScreenBeforeQuit string `json:"screen_before_quit"`
	ExitCode         int    `json:"exit_code"`
	Error            string `json:"error,omitempty"`

	// The dialog scenarios add these.
	// Explainer is Claude's auto-mode notice, answered with Enter.
	Explainer *dialogInfo `json:"explainer,omitempty"`
	// Dialog is the approval dialog, answered with the deny key.
	Dialog *dialogInfo `json:"dialog,omitempty"`
	// Probe is the command the model asked to run, and whether it ran.
	Probe *probeInfo `json:"probe,omitempty"`
	// OSC lists the title (0, 2), status (7501) and notification (9, 777)
	// sequences in the capture.
	OSC []oscInfo `json:"osc,omitempty"`
	// OSC7501Answered is where the recorder answered Claude's OSC 7501
	// probe (ESC ] 7501 ; ? BEL) with ESC ] 7501 ; ? ESC \.
	OSC7501Answered []mark `json:"osc7501_probe_answered,omitempty"`
	// Hooks are the hook payloads captured (-hooks runs only).
	Hooks []hookInfo `json:"hooks,omitempty"`
}

// dialogInfo is one dialog: when it was first fully on screen, the key
// that answered it, and the screen after.
type dialogInfo struct {
	// Rows are the texts that show the dialog fully drawn, in this order.
	Rows []string `json:"rows"`
	// Offset is where the visible screen first showed every row: the end
	// of the read (with reads less than 5 ms after it: one write the pty
	// delivered in pieces) that completed the dialog, outside a
	// synchronized-update frame. AtMS is when that read came.
	Offset int    `json:"offset"`
	AtMS   int64  `json:"at_ms"`
	Screen string `json:"screen"`
	// Key is what the recorder typed to answer it, at KeyOffset/KeyAtMS.
	Key       string `json:"key"`
	KeyOffset int    `json:"key_offset"`
	KeyAtMS   int64  `json:"key_at_ms"`
	// ScreenAfter is the visible screen a few seconds after the key.
	ScreenAfter     string `json:"screen_after,omitempty"`
	ScreenAfterAtMS int64  `json:"screen_after_at_ms,omitempty"`
}

// probeInfo is the tool call's command and what became of it.
type probeInfo struct {
	Command string `json:"command"`
	// File is what the command creates in the project; Ran says whether
	// it was there after the recording.
	File       string `json:"file"`
	Ran        bool   `json:"ran"`
	ToolCallID string `json:"tool_call_id"`
	// Result is the first tool result for the call that reached the fake
	// provider; null when none did.
	Result *resultInfo `json:"result"`
	// MainRequestsAfterCall counts the model requests (not side calls)
	// after the one answered with the call.
	MainRequestsAfterCall int `json:"main_requests_after_call"`
}

type resultInfo struct {
	CallID  string `json:"call_id"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

type limitInfo struct {
	Kind         string `json:"kind"`
	ResetSeconds int    `json:"reset_in_seconds,omitempty"`
	SentAt       string `json:"sent_at,omitempty"`
	// The limit scenarios (limits.go) add these.
	// QuotaPercent is the 5-hour window's use every answer reported.
	QuotaPercent float64 `json:"quota_percent,omitempty"`
	// ResetAt is the reset the provider reported; Refused counts the
	// requests its window refused.
	ResetAt string `json:"reset_at,omitempty"`
	Refused int    `json:"refused,omitempty"`
	// Resume is how the turn went on after the reset: "auto" (the CLI by
	// itself), "\r" (the dialog's Keep trying) or the text typed;
	// ResumedAt is when the first request after the reset came, and
	// ResumedAfterResetMS how long after the reset.
	Resume string `json:"resume,omitempty"`
	// Screen is the visible screen with the limit's dialog or banner fully
	// drawn; Keep is what was typed to keep the current model.
	Screen              string `json:"screen,omitempty"`
	Keep                string `json:"keep,omitempty"`
	ResumedAt           string `json:"resumed_at,omitempty"`
	ResumedAfterResetMS int64  `json:"resumed_after_reset_ms,omitempty"`
}

type requestInfo struct {
	Path      string `json:"path"`
	UserAgent string `json:"user_agent"`
	Model     string `json:"model"`
	Side      bool   `json:"side"`
	Answered  string `json:"answered"`
	// Refused is true for a request a limit window refused.
	Refused bool `json:"refused,omitempty"`
	// ToolCallID is the call sent in answer; ToolResults came with it.
	ToolCallID  string       `json:"tool_call_id,omitempty"`
	ToolResults []resultInfo `json:"tool_results,omitempty"`
}

func summarize(reqs []fakeprovider.Request) []requestInfo {
	out := []requestInfo{}
	for _, r := range reqs {
		ri := requestInfo{Path: r.Path, UserAgent: r.UserAgent, Model: r.Model, Side: r.Side, Answered: r.Answered,
			Refused: r.Refused, ToolCallID: r.ToolCallID}
		for _, tr := range r.ToolResults {
			ri.ToolResults = append(ri.ToolResults, resultInfo{CallID: tr.CallID, Text: tr.Text, IsError: tr.IsError})
		}
		out = append(out, ri)
	}
	return out
}
