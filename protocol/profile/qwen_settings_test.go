//go:build !e2e

package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Qwen Code's follow-up suggestions fill the empty input box with a guess
// at the next prompt, which warden would read as a person's draft: warden
// turns them off in a system-defaults file of its own (the lowest layer),
// keeping the user's own system defaults, and points Qwen at it.
func TestQwenFollowupSuggestionsOff(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(t.TempDir(), "defaults.json")
	os.WriteFile(own, []byte(`{"ui": {"theme": "GitHub"}, "general": {"vimMode": true}}`), 0o600)
	files := map[string][]byte{}
	args, env, err := qwenSettings(Options{Dir: dir, Protocol: "PROTO", Env: []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + own}}, files)
	path := filepath.Join(dir, qwenDefaultsFile)
	if err != nil || len(args) != 2 || args[1] != "PROTO" || len(env) != 1 || env[0] != "QWEN_CODE_SYSTEM_DEFAULTS_PATH="+path {
		t.Fatalf("qwenSettings = %q, %q, %v", args, env, err)
	}
	var got struct {
		UI      map[string]any `json:"ui"`
		General map[string]any `json:"general"`
	}
	if err := json.Unmarshal(files[path], &got); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, files[path])
	}
	if got.UI["enableFollowupSuggestions"] != false || got.UI["theme"] != "GitHub" || got.General["vimMode"] != true {
		t.Errorf("the defaults file lost the user's settings or left suggestions on:\n%s", files[path])
	}
	os.WriteFile(own, []byte(`not json`), 0o600)
	if _, _, err := qwenSettings(Options{Dir: dir, Env: []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + own}}, files); err == nil {
		t.Error("a user's defaults file that is not JSON was silently replaced")
	}
}
