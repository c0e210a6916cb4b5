package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ClaudeSettingsFile is the name of the settings file passed to Claude Code
// with --settings, inside Options.Dir.
const ClaudeSettingsFile = "claude-settings.json"

// claudeSettings writes the --settings file. Claude Code merges a --settings
// file over the user's, project and local settings ("flagSettings", below
// only managed policy): hook lists from every source all run, so the user's
// own hooks keep working, but statusLine is one value and ours wins. When the
// user has a statusLine command of their own (in CLAUDE_CONFIG_DIR or
// ~/.claude settings.json), ours runs it with the same input and shows its
// first line followed by warden's gauge, so the user loses nothing.
func claudeSettings(o Options, files map[string][]byte) ([]string, error) {
	var statusArgs []string
	if cmd := o.userClaudeStatusLine(); cmd != "" {
		statusArgs = []string{cmd}
	}
	hook := func(kind string) []any {
		return []any{map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": o.hookCommand(kind), "timeout": 5}}}}
	}
	settings := map[string]any{
		"hooks": map[string]any{
			"Stop":              hook(KindClaudeStop),
			"StopFailure":       hook(KindClaudeStopFailure),
			"PermissionRequest": hook(KindClaudePermission),
			"Notification":      hook(KindClaudeNotification),
		},
		"statusLine": map[string]any{
			"type": "command", "command": o.hookCommand(KindClaudeStatus, statusArgs...), "padding": 0},
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode claude settings: %w", err)
	}
	path := filepath.Join(o.Dir, ClaudeSettingsFile)
	files[path] = append(b, '\n')
	args := []string{"--settings", path}
	if o.Protocol != "" {
		args = append(args, "--append-system-prompt", o.Protocol)
	}
	return args, nil
}

// userClaudeStatusLine returns the user's own statusLine command, "" when
// there is none or the settings file cannot be read.
func (o Options) userClaudeStatusLine() string {
	dir := o.env("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := o.env("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".claude")
	}
	b, err := o.readFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		return ""
	}
	var s struct {
		StatusLine struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if json.Unmarshal(b, &s) != nil || s.StatusLine.Type != "command" {
		return ""
	}
	return s.StatusLine.Command
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
