package main

// oscFilter drops OSC strings (ESC ] ... BEL or ESC \) from the stream fed
// to the emulator: x/vt lets window titles leak onto the screen
// (charmbracelet/x#848). It keeps its state across writes.
type oscFilter struct {
	inOSC bool
	esc   bool
}

func (f *oscFilter) filter(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		switch {
		case f.inOSC:
			switch {
			case b == 0x07:
				f.inOSC, f.esc = false, false
			case f.esc && b == '\\':
				f.inOSC, f.esc = false, false
			default:
				f.esc = b == 0x1b
			}
		case f.esc:
			f.esc = false
			if b == ']' {
				f.inOSC = true
				continue
			}
			out = append(out, 0x1b, b)
		case b == 0x1b:
			f.esc = true
		default:
			out = append(out, b)
		}
	}
	return out
}
