package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// GeminiHomeDir is the directory, inside Options.Dir, that warden gives
// Gemini CLI as GEMINI_CLI_HOME; its .gemini/settings.json is generated.
const GeminiHomeDir = "gemini-home"

// Why an overlay home. Gemini CLI 0.61.0 reads four settings files: system
// defaults, user (~/.gemini/settings.json), workspace (.gemini/ in the
// project) and system. GEMINI_CLI_SYSTEM_SETTINGS_PATH and
// GEMINI_CLI_SYSTEM_DEFAULTS_PATH move the system files, but the CLI skips a
// system file unless it and every directory above it are owned by root and
// not writable by group or others ("Security Warning: Skipping system
// defaults file …", measured), so they are no use to a normal user. A
// project-level file would write into the user's repository and needs
// folder trust. What is left is GEMINI_CLI_HOME, which moves ~/.gemini as a
// whole: warden points it at D/gemini-home, whose .gemini/ holds a settings.json
// that is the user's own plus warden's hooks, and a symlink to every other
// entry of the user's ~/.gemini (login, accounts, history, extensions,
// trusted folders), so the login and everything the CLI writes stay the
// user's. The user's ~/.agents is linked too (the CLI looks for it beside
// .gemini). Two consequences: a setting changed with /settings during a
// warden session lands in the copy and is gone at the next start; and an
// agent whose working directory is the user's home no longer sees it as
// home, so ~/.gemini/settings.json is read as workspace settings too.
//
// Hooks from settings need no approval (only project hooks print a warning
// the first time), but none run in a folder the user has not trusted when
// folder trust is on; that is the user's choice, and the same trust dialog
// would block the agent's first prompt anyway.

// geminiMemory is Gemini CLI's global memory file in ~/.gemini.
const geminiMemory = "GEMINI.md"

// geminiHookTimeoutMS is the per-hook timeout Gemini enforces; warden hook
// exits within 1 s on its own.
const geminiHookTimeoutMS = 3000

func geminiSettings(o Options, files map[string][]byte) ([]string, error) {
	userHome := o.env("GEMINI_CLI_HOME")
	if userHome == "" {
		userHome = o.env("HOME")
	}
	if userHome == "" {
		return nil, fmt.Errorf("no HOME in the agent's environment")
	}
	userDir := filepath.Join(userHome, ".gemini")
	settings := map[string]any{}
	if b, err := o.readFile(filepath.Join(userDir, "settings.json")); err == nil && len(b) > 0 {
		if err := json.Unmarshal(stripJSONComments(b), &settings); err != nil {
			return nil, fmt.Errorf("parse %s: %w", filepath.Join(userDir, "settings.json"), err)
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
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
	add("Notification", KindGeminiNotification)
	settings["hooks"] = hooksMap
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode gemini settings: %w", err)
	}
	home := filepath.Join(o.Dir, GeminiHomeDir)
	if err := linkGeminiHome(home, userHome); err != nil {
		return nil, err
	}
	files[filepath.Join(home, ".gemini", "settings.json")] = append(b, '\n')
	if o.Protocol != "" {
		// The global GEMINI.md is memory the CLI puts in its system
		// instruction, which a compression of the chat keeps: the user's
		// own, then warden's protocol.
		memory, err := o.readFile(filepath.Join(userDir, geminiMemory))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if len(memory) > 0 {
			memory = append(bytes.TrimRight(memory, "\n"), '\n', '\n')
		}
		files[filepath.Join(home, ".gemini", geminiMemory)] = append(memory, []byte(o.Protocol)...)
	}
	return []string{"GEMINI_CLI_HOME=" + home}, nil
}

// linkGeminiHome (re)creates the overlay: home/.gemini/ENTRY -> the user's
// ~/.gemini/ENTRY for every entry but settings.json, and home/.agents. Old
// links are renewed; an entry the CLI created in the overlay because the
// user had none (a first run's tmp/) is kept.
func linkGeminiHome(home, userHome string) error {
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create gemini overlay home: %w", err)
	}
	userDir := filepath.Join(userHome, ".gemini")
	ents, err := os.ReadDir(userDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("list %s: %w", userDir, err)
	}
	links := map[string]string{filepath.Join(home, ".agents"): filepath.Join(userHome, ".agents")}
	for _, e := range ents {
		if e.Name() != "settings.json" && e.Name() != geminiMemory {
			links[filepath.Join(dir, e.Name())] = filepath.Join(userDir, e.Name())
		}
	}
	for link, target := range links {
		if _, err := os.Lstat(target); err != nil {
			continue
		}
		if st, err := os.Lstat(link); err == nil {
			if st.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			if err := os.Remove(link); err != nil {
				return fmt.Errorf("renew gemini overlay link: %w", err)
			}
		}
		if err := os.Symlink(target, link); err != nil {
			return fmt.Errorf("link gemini overlay: %w", err)
		}
	}
	return nil
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

// GeminiTokenLimit is Gemini CLI 0.61.0's tokenLimit(model): 256 000 for the
// Gemma 4 models, 1 048 576 (its DEFAULT_TOKEN_LIMIT) for every other model.
// The CLI does not report the limit, so this mirrors its table.
func GeminiTokenLimit(model string) int {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return 256000
	}
	return 1048576
}
