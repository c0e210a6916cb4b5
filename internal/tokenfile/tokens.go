// Package tokenfile reads the tokens an agent CLI spent from the CLI's own
// files, the way each CLI writes them (supervisor/usage prices them):
//
//   - Claude Code: its transcript, CLAUDE_CONFIG_DIR (or ~/.claude)
//     /projects/<project dir mangled>/<session>.jsonl, and its sub-agents'
//     transcripts beside it in <session>/subagents/agent-<id>.jsonl: the
//     message.usage of assistant lines, counted once per message id and
//     request id (Claude writes one line per content block, each with the
//     whole message's usage);
//   - Codex: the session's rollout file, CODEX_HOME/sessions/YYYY/MM/DD/
//     rollout-<time>-<thread>.jsonl: the newest token_count event's
//     info.total_token_usage (cumulative; its input includes the cached
//     part);
//   - Gemini CLI: its chat files, ~/.gemini/tmp/<project>/chats/
//     session-<time>-<session prefix>.jsonl and its sub-agents' chats in
//     chats/<session>/: the tokens of each gemini message, counted once per
//     message id.
//
// Each reader keeps its place in every file and reads only what was
// appended since its last call; a file replaced or truncated is read again
// from its start. Side calls a CLI makes on its own (thread titles,
// Gemini's model router) are in none of these files.
package tokenfile

import (
	"maps"

	"github.com/wardenhq/warden/protocol"
)

// Tokens are the tokens of a session, in one form for every CLI (the
// record's form: protocol.Tokens): Input is the whole prompt, with its
// cached and cache-written parts; CachedInput the part read from the
// provider's prompt cache; CacheWrite the part written to it (Claude only:
// the others count it as plain input); Output the replies (reasoning
// included).
type Tokens = protocol.Tokens

// Report is what a reader found for one session.
type Report struct {
	// Tokens is the session's sum; ByModel splits it by the model that
	// answered ("" when a CLI's file names none).
	Tokens  Tokens            `json:"tokens"`
	ByModel map[string]Tokens `json:"by_model,omitempty"`
	// Files are where the figures were found, the main file first.
	Files []string `json:"files"`
	// BytesRead is how many bytes of those files the reader has read in
	// all (each byte once, unless a file was replaced or truncated).
	BytesRead int64 `json:"bytes_read"`
}

// byModel adds t to m[model], making m if needed.
func byModel(m map[string]Tokens, model string, t Tokens) map[string]Tokens {
	if m == nil {
		m = map[string]Tokens{}
	}
	m[model] = m[model].Add(t)
	return m
}

// merge adds every model's tokens of src into dst.
func merge(dst, src map[string]Tokens) map[string]Tokens {
	for model, t := range src {
		dst = byModel(dst, model, t)
	}
	return dst
}

// clone copies a report's map so that a caller may keep it.
func (r Report) clone() Report {
	r.ByModel = maps.Clone(r.ByModel)
	r.Files = append([]string(nil), r.Files...)
	return r
}

// Reader reads one session's figures; each call reads only what its files
// gained since the last (Claude, Codex and Gemini are Readers).
type Reader interface {
	Read() (Report, error)
}

var (
	_ Reader = (*Claude)(nil)
	_ Reader = (*Codex)(nil)
	_ Reader = (*Gemini)(nil)
)
