//go:build !e2e

package profile

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The program-status reports and titles the CLIs write while a dialog
// waits (research/real-clis.md § Approval dialogs), split across writes.
func TestModeTrackerProgramStatusAndTitle(t *testing.T) {
	var m ModeTracker
	msg := base64.StdEncoding.EncodeToString([]byte("approve Bash: curl -s http://127.0.0.1:9/probe"))
	stream := "\x1b]7501;?\x07hello\x1b]7501;state=working:app=claude-code\x07" +
		"\x1b]7501;state=blocked:app=claude-code:kind=permission:msg=" + msg + "\x07"
	for i := 0; i < len(stream); i += 7 { // in pieces
		m.Write([]byte(stream[i:min(i+7, len(stream))]))
	}
	if m.Probes() != 1 {
		t.Errorf("probes %d", m.Probes())
	}
	st := m.Status()
	if !st.Blocked() || st.Kind != "permission" || st.App != "claude-code" || st.Msg != "approve Bash: curl -s http://127.0.0.1:9/probe" {
		t.Errorf("status %+v", st)
	}
	m.Write([]byte("\x1b]7501;state=blocked:app=codex:kind=permission\x1b\\\x1b]0;[ ! ] Action Required | t | /w\x07"))
	if st := m.Status(); !st.Blocked() || st.App != "codex" || m.Title() != "[ ! ] Action Required | t | /w" {
		t.Errorf("codex status %+v title %q", st, m.Title())
	}
	m.Write([]byte("\x1b]7501;state=idle:app=codex\x1b\\\x1b]2;◇  Ready (w)\x1b\\\x1b[?2004h"))
	if m.Status().Blocked() || m.Title() != "◇  Ready (w)" || !m.Bracketed() {
		t.Errorf("after: %+v %q %v", m.Status(), m.Title(), m.Bracketed())
	}
}

// The tracker's view along each recorded real-CLI session (taken every 1000
// bytes) is the same whatever the boundaries of the writes, down to one byte
// at a time: the skip over plain text must never step past an escape split
// across writes.
func TestModeTrackerSameForAnySplit(t *testing.T) {
	files, err := filepath.Glob("../testdata/cli-*/*.raw")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	const every = 1000
	type view struct {
		bracketed bool
		status    ProgramStatus
		title     string
		probes    int
	}
	trace := func(raw []byte, write func(m *ModeTracker, seg []byte)) []view {
		var m ModeTracker
		var v []view
		for at := 0; at < len(raw); at += every {
			write(&m, raw[at:min(at+every, len(raw))])
			v = append(v, view{m.Bracketed(), m.Status(), m.Title(), m.Probes()})
		}
		return v
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole := trace(raw, func(m *ModeTracker, seg []byte) { m.Write(seg) })
		if !slices.ContainsFunc(whole, func(v view) bool { return v.title != "" || v.status.State != "" || v.bracketed }) {
			t.Errorf("%s: nothing tracked", f)
		}
		for _, max := range []int{1, 3, 64} {
			got := trace(raw, func(m *ModeTracker, seg []byte) {
				for i := 0; i < len(seg); {
					n := 1 + rng.IntN(max)
					m.Write(seg[i:min(i+n, len(seg))])
					i += n
				}
			})
			if !slices.Equal(got, whole) {
				for i := range whole {
					if got[i] != whole[i] {
						t.Errorf("%s in writes of up to %d bytes, at byte %d: %+v, whole: %+v", f, max, (i+1)*every, got[i], whole[i])
						break
					}
				}
			}
		}
	}
}

// BenchmarkModeTracker: the tracker over a plain agent's output (100-byte
// lines in 32 KiB chunks) and over a real Claude Code session.
func BenchmarkModeTracker(b *testing.B) {
	plain := bytes.Repeat([]byte(strings.Repeat("x", 98)+"\r\n"), 32<<10/100)
	claude, err := os.ReadFile("../testdata/cli-claude/checkpoint-200x50.raw")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"plain", plain}, {"claude", claude}} {
		b.Run(c.name, func(b *testing.B) {
			var m ModeTracker
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				m.Write(c.data)
			}
		})
	}
}
