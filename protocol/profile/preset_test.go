//go:build !e2e

package profile

import (
	"encoding/json"
	"testing"
)

// Every preset's environment value that looks like JSON is JSON (OpenCode
// skips an OPENCODE_PERMISSION it cannot parse, with only a log line).
func TestPresetEnvIsJSON(t *testing.T) {
	for _, c := range CLIs() {
		p, ok := PresetOf(c.Name)
		if !ok {
			continue
		}
		for k, v := range p.Env {
			var x map[string]any
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				t.Errorf("%s: %s is not JSON: %v\n%s", c.Name, k, err, v)
			}
		}
	}
}
