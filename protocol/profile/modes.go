package profile

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// ModeTracker follows what a program says about itself in its raw output:
// the DEC private mode 2004 (bracketed paste: CSI ? … 2004 … h sets it, … l
// resets it), its program-status reports (OSC 7501, which Claude Code sends
// once the terminal answered its probe and Codex sends unasked), its window
// title (OSC 0 or 2), and whether it probed for OSC 7501 — also when a
// sequence is split across writes.
type ModeTracker struct {
	bracketed bool
	status    ProgramStatus
	title     string
	probes    int

	state  int    // 0 ground, 1 after ESC, 2 after CSI, 3 in a private CSI, 4 in an OSC, 5 ESC inside an OSC
	params []byte // parameters of the private CSI, or the OSC payload, so far
}

// ProgramStatus is the last OSC 7501 report: state=working|blocked|idle|
// done|clear, the app, the kind of block (permission) and its message.
type ProgramStatus struct {
	State, App, Kind, Msg string
}

// Blocked reports whether the program says it waits for the user.
func (s ProgramStatus) Blocked() bool { return s.State == "blocked" }

const maxOSC = 1024

// Write feeds raw output; it never fails. Text outside escape sequences is
// skipped a run at a time (bytes.IndexByte), not byte by byte: a plain
// agent's output is nearly all text.
func (m *ModeTracker) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch m.state {
		case 0:
			if c != 0x1b {
				j := bytes.IndexByte(p[i:], 0x1b)
				if j < 0 {
					return len(p), nil
				}
				i += j
			}
			m.state = 1
		case 1:
			switch c {
			case '[':
				m.state = 2
			case ']':
				m.state, m.params = 4, m.params[:0]
			case 0x1b:
				m.state = 1
			default:
				m.state = 0
			}
		case 2:
			m.state = 0
			if c == '?' {
				m.state, m.params = 3, m.params[:0]
			} else if c == 0x1b {
				m.state = 1
			}
		case 3:
			switch {
			case (c >= '0' && c <= '9') || c == ';':
				if len(m.params) < 64 {
					m.params = append(m.params, c)
				}
			case c == 'h' || c == 'l':
				if hasParam(m.params, "2004") {
					m.bracketed = c == 'h'
				}
				m.state = 0
			case c == 0x1b:
				m.state = 1
			default:
				m.state = 0
			}
		case 4: // OSC payload until BEL or ST (ESC \)
			switch c {
			case 0x07:
				m.osc()
				m.state = 0
			case 0x1b:
				m.state = 5
			default:
				if len(m.params) < maxOSC {
					m.params = append(m.params, c)
				}
			}
		case 5:
			if c == '\\' {
				m.osc()
				m.state = 0
			} else {
				m.state = 1 // an ESC that ended the OSC without ST
			}
		}
	}
	return len(p), nil
}

// osc takes one complete OSC payload.
func (m *ModeTracker) osc() {
	num, rest, _ := strings.Cut(string(m.params), ";")
	switch num {
	case "0", "2":
		m.title = rest
	case "7501":
		if rest == "?" {
			m.probes++
			return
		}
		var st ProgramStatus
		for _, f := range strings.Split(rest, ":") {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "state":
				st.State = v
			case "app":
				st.App = v
			case "kind":
				st.Kind = v
			case "msg":
				if b, err := base64.StdEncoding.DecodeString(v); err == nil {
					v = string(b)
				}
				st.Msg = v
			}
		}
		if st.State != "" {
			m.status = st
		}
	}
}

// Bracketed reports whether the program has bracketed paste enabled.
func (m *ModeTracker) Bracketed() bool { return m.bracketed }

// Status is the program's last OSC 7501 report.
func (m *ModeTracker) Status() ProgramStatus { return m.status }

// Title is the window title the program set last.
func (m *ModeTracker) Title() string { return m.title }

// Probes counts the OSC 7501 probes ("ESC ] 7501 ; ?") the program sent;
// answer each with ProbeReply to get its status reports.
func (m *ModeTracker) Probes() int { return m.probes }

// ProbeReply is the terminal's answer to an OSC 7501 probe: it supports
// program-status reports.
var ProbeReply = []byte("\x1b]7501;?\x1b\\")

func hasParam(params []byte, want string) bool {
	start := 0
	for i := 0; i <= len(params); i++ {
		if i == len(params) || params[i] == ';' {
			if string(params[start:i]) == want {
				return true
			}
			start = i + 1
		}
	}
	return false
}
