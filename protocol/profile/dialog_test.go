//go:build !e2e

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// screens reads a capture of the research notes: sections headed by
// "===== title =====", each the rows of one screen.
func screens(t *testing.T, name string) (titles []string, rows [][]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "dialogs", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "=====") {
			titles = append(titles, strings.Trim(l, "= "))
			rows = append(rows, nil)
			continue
		}
		if n := len(rows); n > 0 {
			rows[n-1] = append(rows[n-1], strings.TrimRight(l, " "))
		}
	}
	return titles, rows
}

// Each CLI's approval dialog, recorded from the real CLI at 120x40 (Codex's
// and Gemini's screens from research/captures; Claude's from 2.1.332 with
// testrig/record -scenario dialog-auto / dialog-default -cols 120
// -rows 40: its dialog, explainer and screen_after, see testdata/dialogs),
// is a dialog of the right kind with the command in its text; the screen
// after the deny key is not, and is ready for input.
func TestDialogsOnRealScreens(t *testing.T) {
	cases := []struct {
		profile, file string
		want          []string // kind per section, "" = no dialog (ready)
	}{
		{"claude", "claude-dialog-screen.txt", []string{DialogPermission, DialogPermission, DialogPermission, ""}},
		{"codex", "codex-dialog-screen.txt", []string{DialogPermission, "", DialogPermission}},
		{"gemini", "gemini-dialog-screen.txt", []string{DialogPermission, "", DialogPermission}},
	}
	for _, c := range cases {
		p, _ := For(c.profile)
		titles, all := screens(t, c.file)
		if len(all) != len(c.want) {
			t.Fatalf("%s: %d screens", c.file, len(all))
		}
		for i, rows := range all {
			s := staticScreen{rows: rows}
			d, ok := p.Dialog(s)
			switch {
			case c.want[i] == "" && ok:
				t.Errorf("%s %q: a dialog %+v", c.profile, titles[i], d)
			case c.want[i] == "" && !p.Ready(s):
				t.Errorf("%s %q: not ready after the dialog", c.profile, titles[i])
			case c.want[i] != "" && (!ok || d.Kind != c.want[i]):
				t.Errorf("%s %q: dialog %v %+v, want kind %s", c.profile, titles[i], ok, d, c.want[i])
			case c.want[i] == DialogPermission && !strings.Contains(d.Text, "curl -s http://127.0.0.1:9/probe") &&
				!strings.Contains(d.Text, claudeAutoOffer) && // auto mode's offer names no command (TestClaudeAutoModeOffer)
				!strings.Contains(d.Text, "touch probe-written-by-tool.txt"):
				t.Errorf("%s %q: the text does not show the command:\n%s", c.profile, titles[i], d.Text)
			case c.want[i] != "" && p.Ready(s):
				t.Errorf("%s %q: ready while a dialog waits", c.profile, titles[i])
			}
		}
	}
}

func TestDenyNeverApproves(t *testing.T) {
	for _, name := range Names() {
		p, _ := For(name)
		for _, k := range p.Deny() {
			if string(k.Bytes) != "\x1b" {
				t.Errorf("%s denies with %q", name, k.Bytes)
			}
		}
	}
}

func TestWaitingTitles(t *testing.T) {
	codex, _ := For("codex")
	gemini, _ := For("gemini")
	claude, _ := For("claude")
	if !codex.WaitingTitle("[ ! ] Action Required | probe | /w") || codex.WaitingTitle("[ . ] Working | probe") {
		t.Error("codex titles")
	}
	if !gemini.WaitingTitle("✋  Action Required (w)   ") || gemini.WaitingTitle("◇  Ready (w)") {
		t.Error("gemini titles")
	}
	if claude.WaitingTitle("✳ Claude Code") {
		t.Error("claude title")
	}
}
