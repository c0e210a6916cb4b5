package profile

// ModeTracker follows the DEC private mode 2004 (bracketed paste) in a
// program's raw output: CSI ? … 2004 … h sets it, … l resets it, also when
// the sequence is split across writes or lists several modes.
type ModeTracker struct {
	bracketed bool
	state     int    // 0 ground, 1 after ESC, 2 after CSI, 3 in a private CSI
	params    []byte // parameters of the private CSI so far
}

// Write feeds raw output; it never fails.
func (m *ModeTracker) Write(p []byte) (int, error) {
	for _, c := range p {
		switch m.state {
		case 0:
			if c == 0x1b {
				m.state = 1
			}
		case 1:
			m.state = 0
			if c == '[' {
				m.state = 2
			} else if c == 0x1b {
				m.state = 1
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
		}
	}
	return len(p), nil
}

// Bracketed reports whether the program has bracketed paste enabled.
func (m *ModeTracker) Bracketed() bool { return m.bracketed }

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
