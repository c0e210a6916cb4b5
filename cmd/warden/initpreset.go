package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/wardenhq/warden/protocol/profile"
)

// initLineWidth is where initCommand breaks a long command's array.
const initLineWidth = 88

// initCommand is argv as the team file's command value: one line when it
// fits, else a TOML array over several lines, a flag starting each line and
// its values after it, so that a preset's allowlist (protocol/profile's
// Preset) reads as a list one can edit.
func initCommand(argv []string) string {
	if one := tomlValue(argv); len("command = ")+len(one) <= initLineWidth {
		return one
	}
	var b strings.Builder
	b.WriteString("[\n")
	line := ""
	flush := func() {
		if line != "" {
			b.WriteString("  " + line + "\n")
			line = ""
		}
	}
	for i, a := range argv {
		v := tomlValue(a) + ","
		if i > 0 && strings.HasPrefix(a, "-") || len(line)+1+len(v) > initLineWidth-2 {
			flush()
		}
		if line != "" {
			line += " "
		}
		line += v
	}
	flush()
	b.WriteString("]")
	return b.String()
}

// initEnv is the env line of preset p ("" when it sets none): each value
// a TOML multi-line literal string, as the preset writes it (JSON over
// lines, for OpenCode's OPENCODE_PERMISSION).
func initEnv(p profile.Preset) string {
	if len(p.Env) == 0 {
		return ""
	}
	var entries []string
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		v := p.Env[k]
		if strings.Contains(v, "'''") || !strings.Contains(v, "\n") {
			entries = append(entries, k+" = "+tomlValue(v))
			continue
		}
		entries = append(entries, k+" = '''\n"+v+"'''")
	}
	return "env = { " + strings.Join(entries, ", ") + " }\n"
}
