package session

// tailRing keeps the last size bytes written to it (plainTail when size
// is 0): a plain agent's recent output, for its screen. It is allocated at
// its size once, at the first write, and a write copies its bytes once: no
// growth, no shifting of what is kept on every chunk of a flooding agent.
type tailRing struct {
	buf  []byte
	size int
	at   int  // where the next byte goes
	full bool // buf has wrapped: buf[at:] is older than buf[:at]
}

func (r *tailRing) Write(p []byte) {
	if r.buf == nil {
		if r.size <= 0 {
			r.size = plainTail
		}
		r.buf = make([]byte, r.size)
	}
	if len(p) >= r.size {
		copy(r.buf, p[len(p)-r.size:])
		r.at, r.full = 0, true
		return
	}
	n := copy(r.buf[r.at:], p)
	if n < len(p) {
		copy(r.buf, p[n:])
		r.full = true
	}
	r.at = (r.at + len(p)) % r.size
	if r.at == 0 && len(p) > 0 {
		r.full = true
	}
}

// Bytes returns what is kept, oldest first, in a new slice.
func (r *tailRing) Bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.buf[:r.at]...)
	}
	return append(append(make([]byte, 0, r.size), r.buf[r.at:]...), r.buf[:r.at]...)
}
