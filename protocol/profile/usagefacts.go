package profile

import (
	"bytes"
	"encoding/json"
)

// Where a CLI's hooks say its session's tokens are (HookFacts.Usage*): the
// transcript Claude Code and Gemini CLI name in every hook payload as
// transcript_path, the Codex thread whose rollout file holds them; and the
// price Claude Code puts on the session in its status line.

// transcriptPath is the transcript_path of a hook payload, "" if none. It
// reads the payload's keys in order and stops at that one: the CLIs write
// it among the first, before a Gemini AfterModel payload's whole request.
func transcriptPath(payload []byte) string {
	if !bytes.Contains(payload[:min(len(payload), 4096)], []byte(`"transcript_path"`)) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		if k == "transcript_path" {
			var p string
			if dec.Decode(&p) != nil {
				return ""
			}
			return p
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// claudeStatusCost is cost.total_cost_usd of a Claude Code status line
// payload: Claude's own price of the session so far, in dollars.
func claudeStatusCost(payload []byte) (dollars float64, ok bool) {
	var p struct {
		Cost *struct {
			TotalCostUSD *float64 `json:"total_cost_usd"`
		} `json:"cost"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Cost == nil || p.Cost.TotalCostUSD == nil || *p.Cost.TotalCostUSD < 0 {
		return 0, false
	}
	return *p.Cost.TotalCostUSD, true
}
