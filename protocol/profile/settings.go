package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables warden sets on every agent process; `warden hook`
// reads them.
const (
	EnvAgent    = "WARDEN_AGENT"
	EnvStateDir = "WARDEN_STATE_DIR"
	EnvSocket   = "WARDEN_HOOK_SOCKET"
)

// Options say for which agent the settings are generated.
type Options struct {
	// WardenBin is the absolute path of the warden executable the hooks run.
	WardenBin string
	// StateDir is the team's state dir, Agent the agent's name.
	StateDir string
	Agent    string
	// Dir is the per-agent directory, inside StateDir, that holds the
	// generated files (the caller creates it 0700 and writes files 0600).
	Dir string
	// Socket is the hook bus socket path (hookbus.SocketPath(StateDir)).
	Socket string
	// Env is the agent's environment ("K=V"), read for HOME, CLAUDE_CONFIG_DIR,
	// CODEX_HOME and GEMINI_CLI_SYSTEM_DEFAULTS_PATH to find the user's own
	// settings. Values are never logged or copied into errors.
	Env []string
	// Protocol is warden's protocol text (protocol.SystemPrompt), put where
	// the CLI keeps instructions across a compaction of its context: Claude's
	// --append-system-prompt, Codex's developer_instructions, Gemini's global
	// GEMINI.md in its overlay home. "" leaves it out.
	Protocol string
	// ReadFile reads the user's settings files; nil means os.ReadFile.
	ReadFile func(path string) ([]byte, error)
}

// Settings returns what makes the agent's CLI report to warden: arguments to
// put right after the program name, environment entries to add (always the
// three WARDEN_* variables), and files to write (absolute paths inside
// opts.Dir, 0600). Profile "plain" (or "") gets only the environment.
func Settings(profile string, opts Options) (extraArgs []string, extraEnv []string, files map[string][]byte, err error) {
	if err := opts.check(); err != nil {
		return nil, nil, nil, fmt.Errorf("hook settings for %s: %w", opts.Agent, err)
	}
	extraEnv = []string{EnvAgent + "=" + opts.Agent, EnvStateDir + "=" + opts.StateDir, EnvSocket + "=" + opts.Socket}
	files = map[string][]byte{}
	p, err := For(profile)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hook settings for %s: %w", opts.Agent, err)
	}
	if p.cli.Settings == nil { // plain: the environment only
		return nil, extraEnv, files, nil
	}
	args, env, err := p.cli.Settings(opts, files)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hook settings for %s (%s): %w", opts.Agent, profile, err)
	}
	extraArgs, extraEnv = args, append(extraEnv, env...)
	return extraArgs, extraEnv, files, nil
}

func (o Options) check() error {
	switch {
	case o.Agent == "":
		return fmt.Errorf("no agent name")
	case !filepath.IsAbs(o.WardenBin):
		return fmt.Errorf("warden binary path %q is not absolute", o.WardenBin)
	case !filepath.IsAbs(o.Dir) || !filepath.IsAbs(o.StateDir):
		return fmt.Errorf("state dir and agent dir must be absolute")
	case o.Socket == "":
		return fmt.Errorf("no hook socket path")
	}
	return nil
}

// env looks a variable up in the agent's environment.
func (o Options) env(key string) string {
	v := ""
	for _, kv := range o.Env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in exec.Cmd
		}
	}
	return v
}

// hookEnv is the WARDEN_* variables as a map, for CLIs that let a hook
// carry its own environment (Gemini sanitises the one it passes on).
func (o Options) hookEnv() map[string]string {
	return map[string]string{EnvAgent: o.Agent, EnvStateDir: o.StateDir, EnvSocket: o.Socket}
}

// shellQuote quotes s for a POSIX shell: the CLIs run hook commands with sh.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCommand is the shell command line that runs `warden hook KIND ARGS…`.
func (o Options) hookCommand(kind string, args ...string) string {
	parts := []string{shellQuote(o.WardenBin), "hook", kind}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func (o Options) readFile(path string) ([]byte, error) {
	read := o.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	b, err := read(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, err
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// stripJSONComments blanks // and /* */ comments outside strings, as the
// CLI's strip-json-comments does, keeping offsets for error messages.
func stripJSONComments(b []byte) []byte {
	out := append([]byte(nil), b...)
	inStr, esc := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}
