package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// GeminiSettingsFile is the name of the generated Gemini CLI settings file
// inside Options.Dir.
const GeminiSettingsFile = "gemini-system-defaults.json"

// geminiDefaultsEnv makes Gemini CLI read its "system defaults" settings
// from our file. Of the four files it reads (system defaults < user <
// workspace < system), system defaults has the lowest precedence, and its
// hook lists are concatenated with the others' (mergeStrategy concat), so
// ~/.gemini and the project's .gemini stay untouched and every hook the user
// has still runs. The file this variable replaces
// (/etc/gemini-cli/system-defaults.json, or the path the variable already
// named) is copied into ours, so nothing of it is lost.
//
// Hooks from settings need no approval in Gemini CLI 0.61.0 (only project
// hooks print a warning the first time), but none run in a folder the user
// has not trusted when folder trust is on: that is the user's trust choice,
// and the same dialog blocks the agent's first prompt anyway.
const geminiDefaultsEnv = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"

// geminiHookTimeoutMS is the per-hook timeout Gemini enforces; warden hook
// exits within 1 s on its own.
const geminiHookTimeoutMS = 3000

func geminiSettings(o Options, files map[string][]byte) ([]string, error) {
	settings := map[string]any{}
	orig := o.geminiDefaultsPath()
	if b, err := o.readFile(orig); err == nil && len(b) > 0 {
		if err := json.Unmarshal(b, &settings); err != nil {
			return nil, fmt.Errorf("parse gemini system defaults %s: %w", orig, err)
		}
	}
	hooksMap, _ := settings["hooks"].(map[string]any)
	if hooksMap == nil {
		hooksMap = map[string]any{}
	}
	add := func(event, kind string) {
		list, _ := hooksMap[event].([]any)
		hooksMap[event] = append(list, map[string]any{"hooks": []any{map[string]any{
			"type": "command", "name": "warden-" + kind, "command": o.hookCommand(kind),
			"timeout": geminiHookTimeoutMS, "env": o.hookEnv()}}})
	}
	add("AfterAgent", KindGeminiAfterAgent)
	add("AfterModel", KindGeminiAfterModel)
	settings["hooks"] = hooksMap
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode gemini settings: %w", err)
	}
	path := filepath.Join(o.Dir, GeminiSettingsFile)
	files[path] = append(b, '\n')
	return []string{geminiDefaultsEnv + "=" + path}, nil
}

// geminiDefaultsPath is where Gemini CLI would read system defaults from.
func (o Options) geminiDefaultsPath() string {
	if p := o.env(geminiDefaultsEnv); p != "" {
		return p
	}
	sys := o.env("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if sys == "" {
		sys = "/etc/gemini-cli/settings.json"
	}
	return filepath.Join(filepath.Dir(sys), "system-defaults.json")
}
