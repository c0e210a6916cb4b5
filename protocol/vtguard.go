package protocol

// x/vt indexes its grids with what programs send and has panicked on
// margins past the screen (bounded by the escape filter since: escfilter.go).
// A panic there would end warden and every agent of the team because of one
// agent's output, so the emulator is guarded: should another such sequence
// turn up, the agent's screen is reset — the parser's sequence cancelled
// (CAN), the terminal reset (RIS) — and the program's next frame draws it
// again. warden's log says so (the first few times).

// maxFailLogs bounds the warnings one screen logs.
const maxFailLogs = 3

// feed writes b to the emulator, resetting it if it panics.
func (s *vtScreen) feed(b []byte) {
	defer func() {
		if r := recover(); r != nil {
			s.failed++
			if s.failed <= maxFailLogs {
				s.log.Warn("the terminal emulator failed on the agent's output: its screen is reset", "error", r, "times", s.failed)
			}
			s.reset()
		}
	}()
	_, _ = s.em.Write(b)
}

// reset returns the emulator to a terminal's power-on state, its size and
// the screen it is on kept.
func (s *vtScreen) reset() {
	defer func() {
		if r := recover(); r != nil {
			s.log.Warn("the terminal emulator cannot be reset", "error", r)
		}
	}()
	_, _ = s.em.Write([]byte("\x18\x1bc"))
	if s.park != nil {
		s.park.heal()
	}
}
