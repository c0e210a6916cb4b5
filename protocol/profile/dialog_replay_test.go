//go:build !e2e

package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dialogSidecar is the dialog part of a dialog recording's sidecar.
type dialogSidecar struct {
	Dialog struct {
		Offset    int    `json:"offset"`
		KeyOffset int    `json:"key_offset"`
		Key       string `json:"key"`
	} `json:"dialog"`
}

// Each real CLI's approval dialog, replayed from its recording: the profile
// reads a permission dialog with the command in its text at the offset the
// recorder saw it fully drawn and up to the deny key, never "ready" there
// (so nothing is typed), and the CLI's own signal agrees (OSC 7501 blocked,
// or the Action Required title); after the deny key it is ready again.
func TestDialogRecordings(t *testing.T) {
	cases := []struct {
		cli, name string
		signal    func(m *ModeTracker, p *Profile) bool
	}{
		{"claude", "dialog-default-200x50", func(m *ModeTracker, _ *Profile) bool { return m.Status().Blocked() }},
		{"claude", "dialog-auto-200x50", func(m *ModeTracker, _ *Profile) bool { return m.Status().Blocked() }},
		{"codex", "dialog-200x50", func(m *ModeTracker, _ *Profile) bool { return m.Status().Blocked() }},
		{"gemini", "dialog-200x50", func(m *ModeTracker, p *Profile) bool { return p.WaitingTitle(m.Title()) }},
		// OpenCode, Qwen Code and Copilot say it only on the screen: no status
		// report, no title of their own for it.
		{"opencode", "dialog-200x50", nil},
		{"qwen", "dialog-200x50", nil},
		{"copilot", "dialog-200x50", nil},
	}
	for _, c := range cases {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			rec := loadRecording(t, c.cli, c.name)
			var side dialogSidecar
			b, _ := os.ReadFile(filepath.Join(testdataDir, "cli-"+c.cli, c.name+".json"))
			if err := json.Unmarshal(b, &side); err != nil || side.Dialog.Offset == 0 {
				t.Fatalf("sidecar: %v", err)
			}
			p, _ := For(c.cli)
			rp := rec.replay(t)
			for _, at := range []int{side.Dialog.Offset, side.Dialog.KeyOffset} {
				s := rp.to(at)
				d, ok := p.Dialog(s)
				if !ok || d.Kind != DialogPermission || !strings.Contains(d.Text, "curl -s http://127.0.0.1:9/probe") {
					t.Fatalf("at %d: dialog %v %+v\n%s", at, ok, d, s)
				}
				if p.Ready(s) {
					t.Errorf("at %d: ready while the dialog waits", at)
				}
				if c.signal != nil && !c.signal(&rp.modes, p) {
					t.Errorf("at %d: the CLI's own signal says nothing: status %+v, title %q", at, rp.modes.Status(), rp.modes.Title())
				}
			}
			// The screen after the deny key: the write that follows it (the
			// quit keys) was typed at a ready prompt.
			after := -1
			for _, ty := range rec.Typed {
				if ty.Offset > side.Dialog.KeyOffset {
					after = ty.Offset
					break
				}
			}
			if after < 0 {
				t.Fatal("nothing typed after the deny key")
			}
			s := rp.to(after)
			if d, ok := p.Dialog(s); ok {
				t.Errorf("after the deny key: still a dialog %+v\n%s", d, s)
			}
			if !p.Ready(s) {
				t.Errorf("after the deny key: not ready\n%s", s)
			}
		})
	}
}

// sidecarDialogOffset is where a dialog recording's dialog is fully drawn.
func sidecarDialogOffset(t testing.TB, cli, name string) int {
	var side dialogSidecar
	b, _ := os.ReadFile(filepath.Join(testdataDir, "cli-"+cli, name+".json"))
	if err := json.Unmarshal(b, &side); err != nil || side.Dialog.Offset == 0 {
		t.Fatalf("sidecar of %s/%s: %v", cli, name, err)
	}
	return side.Dialog.Offset
}
