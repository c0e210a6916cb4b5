//go:build !e2e

package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// A scroll region reaching past the screen — a program's stale DECSTBM
// after a resize (Codex sends CSI 1;50 r), or any program's — is bounded to
// the screen as a terminal does; x/vt alone panicked on the next scroll,
// taking warden and every agent with it.
func TestScrollRegionPastTheScreen(t *testing.T) {
	s := newVTScreen(testLogger(t), 40, 10, nil, true)
	defer s.Close()
	_, _ = s.Write([]byte("\x1b[1;80r\x1b[10;1Hlast\n\rbelow"))
	if rows := s.Rows(); rows[8].Text != "last" || rows[9].Text != "below" {
		t.Errorf("the region did not scroll at the screen's bottom: %v", rows)
	}
	_, _ = s.Write([]byte("\x1b[1;1Htop\x1bM\x1b[3L\x1b[2T"))
	if rows := s.Rows(); rows[6].Text != "top" || rows[0].Text != "" {
		t.Errorf("reverse index, insert and scroll down at the top: %v", rows)
	}
	// Split across writes, or too long to keep: cancelled, never passed on.
	for _, in := range []string{"\x1b[1;", "80r\x1bM", "\x1b[000000001;0000000080r\x1bM", "\x1b[5;99999999999999999999r\x1b[6;1H\x1b[3L"} {
		_, _ = s.Write([]byte(in))
	}
	if s.failed != 0 {
		t.Errorf("the emulator failed %d times", s.failed)
	}
}

// Left and right margins past the screen (DECSLRM, with DECLRMM set) are
// bounded the same way; x/vt panicked on the next insert.
func TestLeftRightMarginsPastTheScreen(t *testing.T) {
	s := newVTScreen(testLogger(t), 40, 10, nil, true)
	defer s.Close()
	_, _ = s.Write([]byte("\x1b[?69h\x1b[1;300s\x1b[1;1Habc\x1b[1;1H\x1b[2@\x1b[5P\x1b[3L\x1bM\x1b[2S"))
	s.Resize(20, 5)
	_, _ = s.Write([]byte("\x1b[5;300s\x1b[3@\x1b[?69l\x1b[2J\x1b[Hok"))
	if rows := s.Rows(); rows[0].Text != "ok" || s.failed != 0 {
		t.Errorf("after the margins: %v; the emulator failed %d times", rows, s.failed)
	}
}

// Should x/vt panic on some other sequence, only the agent's screen pays:
// it is reset (back on the main screen, as a terminal's reset does), and the
// next output draws on it as on a new terminal. (The
// margins are fed to the emulator directly here, past the filter that
// bounds them.)
func TestAnEmulatorPanicResetsTheScreen(t *testing.T) {
	for _, alt := range []bool{false, true} {
		s := newVTScreen(testLogger(t), 40, 10, nil, true)
		if alt {
			_, _ = s.Write([]byte("\x1b[?1049h"))
		}
		s.feed([]byte("\x1b[?69h\x1b[1;300s\x1b[1;1H\x1b[5@"))
		s.feed([]byte("\x1b[1;80r\x1b[1;1H\x1bM"))
		if s.failed != 2 {
			t.Errorf("alt %v: %d failures seen, want 2", alt, s.failed)
		}
		_, _ = s.Write([]byte("\x1b[2J\x1b[Hfine\r\nstill"))
		if rows := s.Rows(); len(rows) != 10 || rows[0].Text != "fine" || rows[1].Text != "still" || s.AltScreen() {
			t.Errorf("alt %v: after the reset: alt %v, %v", alt, s.AltScreen(), rows)
		}
		s.Close()
	}
}

// FuzzScreen drives the emulator with sequences built from the fuzzer's
// bytes (CSI with numeric parameters and any final byte, ESC sequences,
// text, controls, resizes), on both screens: warden's screen reader never
// panics, whatever a program prints, and the emulator never fails on what
// the filter passes it (its guard, vtguard.go, is the last resort).
func FuzzScreen(f *testing.F) {
	f.Add([]byte{0, 1, 80, 'r', 3, 'M', 2, 50, 1, 9, 'L'})
	f.Add([]byte{5, 1, 6, 6, 49, 0, 2, 3, 'T', 7, 20, 5})
	f.Add([]byte{6, 0, 0, 1, 3, 1, 17, 2, 300 % 256, 's', 0, 1, 5, '@'})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newVTScreen(testLogger(t), 30, 8, nil, true)
		defer s.Close()
		var b strings.Builder
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			c := data[0]
			data = data[1:]
			return int(c)
		}
		for len(data) > 0 {
			switch next() % 8 {
			case 0, 1, 2: // CSI with up to three parameters
				b.WriteString("\x1b[")
				if next()%5 == 0 {
					b.WriteByte("?>=<"[next()%4])
				}
				for i, n := 0, next()%4; i < n; i++ {
					if i > 0 {
						b.WriteByte(';')
					}
					fmt.Fprint(&b, next()*next()%1000)
				}
				b.WriteByte(byte(0x40 + next()%0x3f))
			case 3:
				b.WriteString("\x1b" + string(rune("DEM78cHZ=>"[next()%10])))
			case 4:
				b.WriteString("text\u2500日本\r\n"[:1+next()%15])
			case 5:
				b.WriteByte("\r\n\b\t\x0b\x0c\x0e\x0f"[next()%8])
			case 6:
				b.WriteString([]string{"\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?1047l", "\x1b[2J", "\x1b[3J"}[next()%6])
			case 7:
				_, _ = s.Write([]byte(b.String()))
				b.Reset()
				s.Resize(1+next()%60, 1+next()%30)
			}
		}
		_, _ = s.Write([]byte(b.String()))
		_ = s.Rows()
		_, _ = s.ScrolledOff()
		_ = s.Render()
		if s.failed != 0 {
			t.Fatalf("the emulator failed %d times", s.failed)
		}
	})
}
