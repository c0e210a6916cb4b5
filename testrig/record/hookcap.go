package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// With -hooks DIR the recorder also makes the CLI call a hook on each
// event that announces a dialog (and a few around it); the hook writes its
// stdin to DIR/EVENT-UNIXNANO.json, the time it started in the name.

// hookEvents are the events captured per CLI.
var hookEvents = map[string][]string{
	"claude": {"PreToolUse", "PermissionRequest", "Notification"},
	"codex":  {"PreToolUse", "PermissionRequest"},
	"gemini": {"BeforeTool", "Notification"},
}

// captureScript writes the hook's stdin to a file named for the event and
// the time; its output is empty, so it decides nothing.
const captureScript = `#!/bin/sh
PATH=/usr/bin:/bin
t=$(date +%%s%%N)
cat > %q/"$1-$t.json"
`

// setupHooks writes the capture script into dir and configures cli to run
// it; it returns arguments to add to the command line.
func setupHooks(cli, home, dir string) ([]string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "capture.sh")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.WriteFile(script, []byte(fmt.Sprintf(captureScript, dir)), 0o700); err != nil {
		return nil, fmt.Errorf("write capture script: %w", err)
	}
	events := hookEvents[cli]
	switch cli {
	case "claude":
		// As warden passes its own: a --settings file.
		hooks := map[string]any{}
		for _, ev := range events {
			hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{
				"type": "command", "command": script + " " + ev, "timeout": 5}}}}
		}
		path := filepath.Join(dir, "claude-settings.json")
		if err := writeFile(path, string(mustIndent(map[string]any{"hooks": hooks}))); err != nil {
			return nil, err
		}
		return []string{"--settings", path}, nil
	case "codex":
		// config.toml tables; a new hook needs trust, which the flag skips.
		var b strings.Builder
		for _, ev := range events {
			fmt.Fprintf(&b, "\n[[hooks.%s]]\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %q\n",
				ev, ev, script+" "+ev)
		}
		cfg := filepath.Join(home, ".codex", "config.toml")
		old, err := os.ReadFile(cfg)
		if err != nil {
			return nil, fmt.Errorf("read codex config: %w", err)
		}
		if err := writeFile(cfg, string(old)+b.String()); err != nil {
			return nil, err
		}
		return []string{"--dangerously-bypass-hook-trust"}, nil
	case "gemini":
		cfg := filepath.Join(home, ".gemini", "settings.json")
		old, err := os.ReadFile(cfg)
		if err != nil {
			return nil, fmt.Errorf("read gemini settings: %w", err)
		}
		settings := map[string]any{}
		if err := json.Unmarshal(old, &settings); err != nil {
			return nil, fmt.Errorf("parse gemini settings: %w", err)
		}
		hooks := map[string]any{}
		for _, ev := range events {
			hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{
				"type": "command", "name": "capture-" + ev, "command": script + " " + ev, "timeout": 5000}}}}
		}
		settings["hooks"] = hooks
		return nil, writeFile(cfg, string(mustIndent(settings))+"\n")
	}
	return nil, fmt.Errorf("no hook capture for %q", cli)
}

// hookInfo is one captured hook call.
type hookInfo struct {
	Event string `json:"event"`
	File  string `json:"file"`
	// AtMS is when the hook started, since the CLI started.
	AtMS int64 `json:"at_ms"`
	// NotificationType is the payload's notification_type, if any.
	NotificationType string `json:"notification_type,omitempty"`
	Message          string `json:"message,omitempty"`
}

// collectHooks lists the payloads in dir, oldest first.
func collectHooks(dir string, start time.Time) []hookInfo {
	files, _ := filepath.Glob(filepath.Join(dir, "*-*.json"))
	var out []hookInfo
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		i := strings.LastIndex(base, "-")
		ns, err := strconv.ParseInt(base[i+1:], 10, 64)
		if err != nil {
			continue
		}
		h := hookInfo{Event: base[:i], File: filepath.Base(f), AtMS: (ns - start.UnixNano()) / 1e6}
		if b, err := os.ReadFile(f); err == nil {
			var p struct {
				NotificationType string `json:"notification_type"`
				Message          string `json:"message"`
			}
			if json.Unmarshal(b, &p) == nil {
				h.NotificationType, h.Message = p.NotificationType, p.Message
			}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].AtMS < out[b].AtMS })
	return out
}
