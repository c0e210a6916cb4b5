package tokenfile

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
)

// CodexRollout is the rollout file of Codex thread threadID under
// codexHome (CODEX_HOME, else ~/.codex): sessions/YYYY/MM/DD/
// rollout-<time>-<thread>.jsonl, the newest if several; "" if none yet.
func CodexRollout(codexHome, threadID string) string {
	if codexHome == "" || threadID == "" || strings.ContainsAny(threadID, `/\*?[`) {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*-"+threadID+".jsonl"))
	if len(m) == 0 {
		return ""
	}
	sort.Strings(m)
	return m[len(m)-1]
}

// Codex reads one Codex session from its rollout file: every token_count
// event carries the thread's running total (info.total_token_usage), so
// the newest one is the session's figure; the model is the newest
// turn_context's.
type Codex struct {
	t       tail
	total   Tokens
	model   string
	byModel map[string]Tokens
	atModel Tokens // the total when the model last changed
}

// NewCodex reads the session whose rollout file is at path.
func NewCodex(path string) *Codex { return &Codex{t: tail{path: path}} }

// Read reads what was appended to the rollout file and returns the
// session's figures so far.
func (c *Codex) Read() (Report, error) {
	err := c.t.next(c.reset, c.line)
	rep := Report{Tokens: c.total, Files: []string{c.t.path}, BytesRead: c.t.read}
	rep.ByModel = merge(nil, c.byModel)
	if d := c.total.Sub(c.atModel); d != (Tokens{}) {
		rep.ByModel = byModel(rep.ByModel, c.model, d)
	}
	return rep, err
}

func (c *Codex) reset() { *c = Codex{t: c.t} }

type codexLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type  string `json:"type"`
		Model string `json:"model"`
		Info  *struct {
			Total *struct {
				InputTokens       int64 `json:"input_tokens"`
				CachedInputTokens int64 `json:"cached_input_tokens"`
				OutputTokens      int64 `json:"output_tokens"`
			} `json:"total_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

var (
	tokenCountMark  = []byte(`"token_count"`)
	turnContextMark = []byte(`"turn_context"`)
)

// line takes a token_count event's running total (input_tokens includes
// cached_input_tokens) and a turn_context's model; the tokens spent since
// the model last changed go to the model before the change.
func (c *Codex) line(b []byte) {
	isCount, isTurn := bytes.Contains(b, tokenCountMark), bytes.Contains(b, turnContextMark)
	if !isCount && !isTurn {
		return
	}
	var l codexLine
	if json.Unmarshal(b, &l) != nil {
		return
	}
	switch {
	case l.Type == "turn_context" && l.Payload.Model != "" && l.Payload.Model != c.model:
		if d := c.total.Sub(c.atModel); d != (Tokens{}) {
			c.byModel = byModel(c.byModel, c.model, d)
		}
		c.model, c.atModel = l.Payload.Model, c.total
	case l.Type == "event_msg" && l.Payload.Type == "token_count" && l.Payload.Info != nil && l.Payload.Info.Total != nil:
		u := l.Payload.Info.Total
		c.total = Tokens{Input: u.InputTokens, CachedInput: u.CachedInputTokens, Output: u.OutputTokens}
	}
}
