package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/testrig/realcli"
)

// profile is how the recorder starts, configures and quits one CLI.
type profile struct {
	name string
	// args follow the binary.
	args []string
	// ready is a screen substring that shows the prompt is ready for input.
	ready []string
	// quit is typed to leave; each element is its own write, 700 ms apart.
	quit []string
	// dismiss closes the dialog a usage limit opens (Codex offers another
	// model, Gemini "Keep trying / Stop"), typed before quit.
	dismiss []string
	// setup writes config under home for the project dir and returns the
	// extra environment (names and values that are not secrets: the keys
	// are fake).
	setup func(home, project, baseURL string) ([]string, error)
}

var profiles = map[string]profile{
	"claude": {
		name:  "claude",
		ready: []string{"? for shortcuts", "/effort"},
		quit:  []string{"/exit", "\r"},
		setup: func(home, project, baseURL string) ([]string, error) {
			cfg := fmt.Sprintf(`{"hasCompletedOnboarding": true, "theme": "dark", `+
				`"projects": {%q: {"hasTrustDialogAccepted": true}}}`, project)
			if err := writeFile(filepath.Join(home, ".claude.json"), cfg); err != nil {
				return nil, err
			}
			return []string{"ANTHROPIC_BASE_URL=" + baseURL, "ANTHROPIC_AUTH_TOKEN=fake-token",
				"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, nil
		},
	},
	"codex": {
		name: "codex",
		// --no-daemon: otherwise an app-server daemon outlives the TUI.
		// --no-alt-screen: finished lines go to scrollback, as warden runs it.
		args:    []string{"--no-daemon", "--no-alt-screen"},
		ready:   []string{"? for shortcuts", "context left", "Ask Codex"},
		quit:    []string{"\x03", "\x03"},
		dismiss: []string{"\x1b"},
		setup: func(home, project, baseURL string) ([]string, error) {
			codexHome := filepath.Join(home, ".codex")
			cfg := strings.Join([]string{
				`model = "fake-model"`,
				`model_provider = "fake"`,
				`check_for_update_on_startup = false`,
				`[analytics]`,
				`enabled = false`,
				`[model_providers.fake]`,
				`name = "Fake"`,
				fmt.Sprintf(`base_url = "%s/v1"`, baseURL),
				`env_key = "FAKE_API_KEY"`,
				`wire_api = "responses"`,
				fmt.Sprintf(`[projects.%q]`, project),
				`trust_level = "trusted"`,
				``}, "\n")
			if err := writeFile(filepath.Join(codexHome, "config.toml"), cfg); err != nil {
				return nil, err
			}
			return []string{"CODEX_HOME=" + codexHome, "FAKE_API_KEY=fake-key"}, nil
		},
	},
	"gemini": {
		name:    "gemini",
		ready:   []string{"Type your message"},
		quit:    []string{"/quit", "\r"},
		dismiss: []string{"2"},
		setup: func(home, project, baseURL string) ([]string, error) {
			cfg := `{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
 "ui": {"theme": "Default"}}
`
			if err := writeFile(filepath.Join(home, ".gemini", "settings.json"), cfg); err != nil {
				return nil, err
			}
			return []string{"GOOGLE_GEMINI_BASE_URL=" + baseURL, "GEMINI_API_KEY=fake-key"}, nil
		},
	},
}

// The CLIs added later take their offline set-up from testrig/realcli.
func init() {
	profiles["opencode"] = profile{
		name:  "opencode",
		ready: []string{"Ask anything"},
		quit:  []string{"\x03"},
		setup: func(home, project, baseURL string) ([]string, error) {
			return realcli.Seed("opencode", home, project, baseURL)
		},
	}
	profiles["qwen"] = profile{
		name:  "qwen",
		ready: []string{"Type your message"},
		quit:  []string{"/quit", "\r"},
		setup: func(home, project, baseURL string) ([]string, error) {
			return realcli.Seed("qwen", home, project, baseURL)
		},
	}
	profiles["copilot"] = profile{
		name:  "copilot",
		ready: []string{"/ commands"},
		quit:  []string{"/exit", "\r"},
		setup: func(home, project, baseURL string) ([]string, error) {
			return realcli.Seed("copilot", home, project, baseURL)
		},
	}
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create dir for %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// baseEnv is the whole environment of a recorded CLI: nothing of the
// caller's leaks in.
func baseEnv(binDir, home string) []string {
	return []string{
		"PATH=" + binDir + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=xterm-256color",
		"COLORTERM=truecolor",
	}
}
