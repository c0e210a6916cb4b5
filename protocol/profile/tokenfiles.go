package profile

import (
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/tokenfile"
)

// TokenFiles is how warden finds and reads a CLI's own files of the tokens
// a session spent, which the CLI's hooks name (HookFacts.UsageFile,
// UsageThread).
type TokenFiles struct {
	// File is the file a hook message names for an agent whose environment
	// is env: key tells it among a session's files; path is "" while the
	// CLI has not written it yet (File is asked again at the next read); ok
	// is false when the message names none that can be read.
	File func(f HookFacts, env []string) (key, path string, ok bool)
	// Reader reads the file at path, each call only what it gained.
	Reader func(path string) tokenfile.Reader
}

// TokenFile is the token file a hook message names, read by the rule of
// the CLI that sent it (f.UsageCLI); ok is false when the message names
// none, or its CLI has no rule.
func TokenFile(f HookFacts, env []string) (key, path string, read func(string) tokenfile.Reader, ok bool) {
	if f.UsageCLI == "" {
		return "", "", nil, false
	}
	c := lookup(f.UsageCLI)
	if c == nil || c.Tokens == nil {
		return "", "", nil, false
	}
	key, path, ok = c.Tokens.File(f, env)
	if !ok || key == "" {
		return "", "", nil, false
	}
	return f.UsageCLI + ":" + key, path, c.Tokens.Reader, true
}

// transcriptFile is the rule of the CLIs whose hooks name the session's
// transcript itself (Claude Code, Gemini CLI): an absolute .jsonl path.
func transcriptFile(f HookFacts, _ []string) (key, path string, ok bool) {
	p := f.UsageFile
	if !filepath.IsAbs(p) || !strings.HasSuffix(p, ".jsonl") {
		return "", "", false // no CLI names a transcript so
	}
	return p, p, true
}
