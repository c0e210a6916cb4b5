package tokenfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// GeminiChats is Gemini CLI's chats dir for the project at cwd under
// geminiHome (HOME/.gemini): tmp/<project id>/chats, the id being the
// one ~/.gemini/projects.json gives the project (its directory's name, made
// unique); "" when the project has none yet.
func GeminiChats(geminiHome, cwd string) string {
	b, err := os.ReadFile(filepath.Join(geminiHome, "projects.json"))
	if err != nil {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil || reg.Projects[cwd] == "" {
		return ""
	}
	return filepath.Join(geminiHome, "tmp", reg.Projects[cwd], "chats")
}

// GeminiSession is the chat file of session sessionID in chats:
// session-<time>-<first 8 characters of the id>.jsonl, the newest if
// several; "" if none yet.
func GeminiSession(chats, sessionID string) string {
	m, _ := filepath.Glob(filepath.Join(chats, "session-*-"+sessionID[:min(8, len(sessionID))]+".jsonl"))
	if len(m) == 0 {
		return ""
	}
	sort.Strings(m)
	return m[len(m)-1]
}

// Gemini reads one Gemini CLI session: the chat file at path and its
// sub-agents' chats, chats/<session id>/*.jsonl (found anew on each call).
// A gemini message's tokens {input, output, cached, …} are counted once
// per message id, the last version of a message winning (the CLI appends a
// message again when its tokens arrive, and may rewrite the list with
// $set).
type Gemini struct {
	main      string
	sessionID string
	files     map[string]*geminiFile
	order     []string
}

// NewGemini reads the session whose chat file is at path.
func NewGemini(path string) *Gemini {
	return &Gemini{main: path, files: map[string]*geminiFile{}}
}

type geminiFile struct {
	t    tail
	msgs map[string]geminiMsg
}

type geminiMsg struct {
	model  string
	tokens Tokens
}

// Read reads what was appended to the session's chat files and returns
// the session's figures so far.
func (g *Gemini) Read() (Report, error) {
	var rep Report
	for _, p := range append([]string{g.main}, g.subagents()...) {
		f := g.files[p]
		if f == nil {
			f = &geminiFile{t: tail{path: p}, msgs: map[string]geminiMsg{}}
			g.files[p] = f
			g.order = append(g.order, p)
		}
		if err := f.t.next(func() { f.msgs = map[string]geminiMsg{} }, func(b []byte) { g.line(f, b) }); err != nil {
			return rep, err
		}
	}
	for _, p := range g.order {
		f := g.files[p]
		for _, m := range f.msgs {
			rep.Tokens = rep.Tokens.Add(m.tokens)
			rep.ByModel = byModel(rep.ByModel, m.model, m.tokens)
		}
		rep.Files = append(rep.Files, p)
		rep.BytesRead += f.t.read
	}
	return rep, nil
}

// subagents lists the chat files of the session's sub-agents, sorted.
func (g *Gemini) subagents() []string {
	if g.sessionID == "" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(g.main), g.sessionID, "*.jsonl"))
	sort.Strings(m)
	return m
}

type geminiRecord struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Model     string `json:"model"`
	SessionID string `json:"sessionId"`
	Tokens    *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
	Set *struct {
		Messages []geminiRecord `json:"messages"`
	} `json:"$set"`
}

var tokensMark = []byte(`"tokens"`)

// line takes a message record with tokens, or the messages of a $set; the
// first record (the file's metadata) names the session. The CLI copies
// usageMetadata: input is promptTokenCount (cached part included), tool
// toolUsePromptTokenCount, output candidatesTokenCount, thoughts
// thoughtsTokenCount (billed as output).
func (g *Gemini) line(f *geminiFile, b []byte) {
	isMain := f.t.path == g.main
	if !bytes.Contains(b, tokensMark) && !(isMain && g.sessionID == "") {
		return
	}
	var r geminiRecord
	if json.Unmarshal(b, &r) != nil {
		return
	}
	if isMain && g.sessionID == "" && r.SessionID != "" && r.ID == "" {
		g.sessionID = strings.TrimSpace(r.SessionID)
	}
	take := func(r geminiRecord) {
		if r.Type == "gemini" && r.ID != "" && r.Tokens != nil {
			t := r.Tokens
			f.msgs[r.ID] = geminiMsg{model: r.Model, tokens: Tokens{Input: t.Input + t.Tool,
				CachedInput: t.Cached, Output: t.Output + t.Thoughts}}
		}
	}
	take(r)
	if r.Set != nil {
		for _, m := range r.Set.Messages {
			take(m)
		}
	}
}
