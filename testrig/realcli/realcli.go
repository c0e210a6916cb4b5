// Package realcli is how tests run the real agent CLIs (Claude Code, Codex
// CLI, Gemini CLI, OpenCode, Qwen Code, GitHub Copilot CLI) offline here: where scripts/install-clis.sh put them, and
// the config and environment each needs to start against a fake provider API
// on 127.0.0.1 without a login, onboarding or trust dialog
// (research/real-clis.md).
package realcli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Dir is where the CLIs are installed: $WARDEN_CLIS_DIR, or
// ~/.cache/warden-clis (scripts/install-clis.sh's default).
func Dir() string {
	if d := os.Getenv("WARDEN_CLIS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "warden-clis")
}

// Bin is the path of an installed CLI ("claude", "codex", "gemini"), or an
// error saying how to install it.
func Bin(cli string) (string, error) {
	bin := filepath.Join(Dir(), "node_modules", ".bin", cli)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("real %s not installed at %s: run scripts/install-clis.sh", cli, bin)
	}
	return bin, nil
}

// Seed writes into home what cli needs to start offline in project against
// the fake provider at url, and returns the environment entries ("K=V") it
// also needs. The keys are fake.
func Seed(cli, home, project, url string) ([]string, error) {
	switch cli {
	case "claude":
		err := write(filepath.Join(home, ".claude.json"), fmt.Sprintf(`{"hasCompletedOnboarding": true, "theme": "dark", `+
			`"projects": {%q: {"hasTrustDialogAccepted": true}}}`, project))
		return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_AUTH_TOKEN=fake-token",
			"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, err
	case "codex":
		codexHome := filepath.Join(home, ".codex")
		err := write(filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false
[analytics]
enabled = false
[model_providers.fake]
name = "Fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
[projects.%q]
trust_level = "trusted"
`, url, project))
		return []string{"CODEX_HOME=" + codexHome, "FAKE_API_KEY=fake-key"}, err
	case "gemini":
		err := write(filepath.Join(home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}, "ui": {"theme": "Default"}}
`)
		return []string{"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_API_KEY=fake-key"}, err
	case "opencode":
		// A custom provider through the AI SDK's OpenAI-compatible package,
		// which OpenCode's binary bundles (nothing is installed for it).
		err := write(filepath.Join(home, ".config", "opencode", "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": {"baseURL": "%s/v1", "apiKey": "fake-key"},
      "models": {"fake-model": {"name": "Fake Model", "limit": {"context": 200000, "output": 32000}}}
    }
  }
}
`, url))
		return append([]string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1"}, OpenCodeOffline...), err
	case "qwen":
		err := write(filepath.Join(home, ".qwen", "settings.json"), `{"security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
 "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
 "memory": {"enableManagedAutoMemory": false}, "ui": {"hideTips": true}}
`)
		return []string{"OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=fake-key", "OPENAI_MODEL=fake-model"}, err
	case "copilot":
		// BYOK: a provider of its own instead of GitHub's model routing,
		// which needs no GitHub login; COPILOT_OFFLINE keeps it off the
		// network otherwise (auth, telemetry, update checks).
		copilotHome := filepath.Join(home, ".copilot")
		// The folder's trust is in config.json (in settings.json it is not
		// read: the trust dialog shows), the rest in settings.json.
		err := errors.Join(write(filepath.Join(copilotHome, "config.json"), fmt.Sprintf(`{"trustedFolders": [%q]}
`, project)), write(filepath.Join(copilotHome, "settings.json"), `{"banner": "never", "showTipsOnStartup": false, "autoUpdate": false}
`))
		return []string{"COPILOT_HOME=" + copilotHome, "COPILOT_PROVIDER_BASE_URL=" + url + "/v1",
			"COPILOT_PROVIDER_API_KEY=fake-key", "COPILOT_MODEL=fake-model", "COPILOT_PROVIDER_MAX_PROMPT_TOKENS=200000",
			"COPILOT_PROVIDER_MAX_OUTPUT_TOKENS=32000", "COPILOT_OFFLINE=true",
			"COPILOT_AUTO_UPDATE=false"}, err
	}
	return nil, fmt.Errorf("realcli: no offline set-up for %q", cli)
}

// OpenCodeOffline keeps OpenCode off the npm registry: at start it installs
// its config directory's plugin package (@opencode-ai/plugin) with npm,
// which is not needed to run; a registry on a closed loopback port fails
// that at once, and OpenCode starts as before (measured on 1.18.33).
var OpenCodeOffline = []string{"npm_config_registry=http://127.0.0.1:9/"}

func write(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("realcli: %w", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("realcli: %w", err)
	}
	return nil
}
