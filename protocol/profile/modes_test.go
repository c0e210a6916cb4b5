package profile

import (
	"encoding/base64"
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
