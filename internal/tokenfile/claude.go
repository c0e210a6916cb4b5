package tokenfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// ClaudeConfigDir is Claude Code's config dir for an environment:
// CLAUDE_CONFIG_DIR, else HOME/.claude.
func ClaudeConfigDir(env map[string]string) string {
	if d := env["CLAUDE_CONFIG_DIR"]; d != "" {
		return d
	}
	return filepath.Join(env["HOME"], ".claude")
}

var notAlnum = regexp.MustCompile(`[^a-zA-Z0-9]`)

// ClaudeProjectDir is where Claude Code keeps the transcripts of the
// sessions started in cwd: every character of the path that is not a
// letter or digit becomes "-" (/work/my.app is -work-my-app).
func ClaudeProjectDir(configDir, cwd string) string {
	return filepath.Join(configDir, "projects", notAlnum.ReplaceAllString(cwd, "-"))
}

// ClaudeTranscript is the transcript of session sessionID started in cwd.
// When the mangled directory does not hold it (Claude shortens very long
// paths), it is looked for under every project dir.
func ClaudeTranscript(configDir, cwd, sessionID string) string {
	p := filepath.Join(ClaudeProjectDir(configDir, cwd), sessionID+".jsonl")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if m, _ := filepath.Glob(filepath.Join(configDir, "projects", "*", sessionID+".jsonl")); len(m) == 1 {
		return m[0]
	}
	return p
}

// Claude reads one Claude Code session: the transcript at path and the
// sub-agent transcripts Claude writes beside it, in
// <session>/subagents/[…/]agent-<id>.jsonl (2.1.332), found anew on each
// call.
type Claude struct {
	main    string
	files   map[string]*claudeFile
	order   []string
	scanned int
}

// NewClaude reads the session whose transcript is at path (Claude's hooks
// give it as transcript_path).
func NewClaude(path string) *Claude {
	return &Claude{main: path, files: map[string]*claudeFile{}}
}

// claudeFile is one transcript: its tail and what it has counted, one
// entry per message id and request id.
type claudeFile struct {
	t       tail
	seen    map[string]bool
	tokens  Tokens
	byModel map[string]Tokens
}

// Read reads what was appended to every transcript of the session and
// returns the session's figures so far.
func (c *Claude) Read() (Report, error) {
	paths := append([]string{c.main}, c.subagents()...)
	var rep Report
	for _, p := range paths {
		f := c.files[p]
		if f == nil {
			f = &claudeFile{t: tail{path: p}, seen: map[string]bool{}}
			c.files[p] = f
			c.order = append(c.order, p)
		}
		err := f.t.next(f.reset, f.line)
		if err != nil {
			return rep, err
		}
	}
	for _, p := range c.order {
		f := c.files[p]
		if f.t.read == 0 && p != c.main {
			continue
		}
		rep.Tokens = rep.Tokens.Add(f.tokens)
		rep.ByModel = merge(rep.ByModel, f.byModel)
		rep.Files = append(rep.Files, p)
		rep.BytesRead += f.t.read
	}
	return rep.clone(), nil
}

// subagents lists the session's sub-agent transcripts, sorted.
func (c *Claude) subagents() []string {
	dir := filepath.Join(strings.TrimSuffix(c.main, ".jsonl"), "subagents")
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "agent-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// claudeLine is the part of an assistant transcript line read here.
type claudeLine struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	Message   struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage *struct {
			InputTokens              int64 `json:"input_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

var assistantMark = []byte(`"assistant"`)

// reset forgets what the file counted: it is read again from its start.
func (f *claudeFile) reset() {
	f.seen, f.tokens, f.byModel = map[string]bool{}, Tokens{}, nil
}

// line counts an assistant line's usage once per message and request:
// input_tokens is the uncached part of the prompt, so the whole prompt is
// input + cache creation + cache read.
func (f *claudeFile) line(b []byte) {
	if !bytes.Contains(b, assistantMark) || !bytes.Contains(b, []byte(`"usage"`)) {
		return
	}
	var l claudeLine
	if json.Unmarshal(b, &l) != nil || l.Type != "assistant" || l.Message.Usage == nil {
		return
	}
	key := l.Message.ID + "\x00" + l.RequestID
	if l.Message.ID != "" || l.RequestID != "" {
		if f.seen[key] {
			return
		}
		f.seen[key] = true
	}
	u := l.Message.Usage
	t := Tokens{Input: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		CachedInput: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens, Output: u.OutputTokens}
	f.tokens = f.tokens.Add(t)
	f.byModel = byModel(f.byModel, l.Message.Model, t)
}

// ClaudeStatusCost reads the cost Claude Code puts in the JSON its status
// line command gets on stdin, cost.total_cost_usd (its own price of the
// session so far, in dollars); ok is false when the JSON has none.
func ClaudeStatusCost(statusJSON []byte) (dollars float64, ok bool) {
	var s struct {
		Cost *struct {
			TotalCostUSD *float64 `json:"total_cost_usd"`
		} `json:"cost"`
	}
	if json.Unmarshal(statusJSON, &s) != nil || s.Cost == nil || s.Cost.TotalCostUSD == nil {
		return 0, false
	}
	return *s.Cost.TotalCostUSD, true
}
