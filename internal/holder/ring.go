package holder

// ring keeps the newest bytes of an agent's output up to size: what does
// not fit pushes the oldest out, and how many bytes were pushed out is
// counted. Its buffer grows as bytes come, up to size, and is handed away
// by take: an agent whose master a client reads holds none. It is not
// safe for concurrent use; the agent's lock guards it.
type ring struct {
	size    int
	buf     []byte // len(buf) <= size; circular once full
	start   int    // index of the oldest byte, once full
	full    bool
	dropped int64 // bytes pushed out since the last take
}

func newRing(size int) *ring {
	if size <= 0 {
		size = DefaultRingSize
	}
	return &ring{size: size}
}

// write appends b, dropping the oldest bytes that no longer fit.
func (r *ring) write(b []byte) {
	if len(b) >= r.size { // only the tail of b survives
		r.dropped += int64(r.len()) + int64(len(b)-r.size)
		if cap(r.buf) < r.size {
			r.buf = make([]byte, r.size)
		}
		r.buf = r.buf[:r.size]
		copy(r.buf, b[len(b)-r.size:])
		r.start, r.full = 0, true
		return
	}
	if !r.full {
		k := min(len(b), r.size-len(r.buf))
		r.grow(len(r.buf) + k)
		r.buf = append(r.buf, b[:k]...)
		b = b[k:]
		if len(r.buf) < r.size {
			return
		}
		r.full, r.start = true, 0
	}
	// Full: each new byte overwrites the oldest.
	r.dropped += int64(len(b))
	for len(b) > 0 {
		k := copy(r.buf[r.start:], b)
		b = b[k:]
		r.start = (r.start + k) % r.size
	}
}

// grow makes room for n bytes in buf, never more than size.
func (r *ring) grow(n int) {
	if n <= cap(r.buf) {
		return
	}
	nb := make([]byte, len(r.buf), min(r.size, max(n, 2*cap(r.buf), 4096)))
	copy(nb, r.buf)
	r.buf = nb
}

// take returns the bytes held, oldest first, and the count of bytes
// dropped before them, and empties the ring (its buffer goes with them).
func (r *ring) take() ([]byte, int64) {
	out := r.buf
	if r.full && r.start > 0 {
		out = make([]byte, 0, r.size)
		out = append(append(out, r.buf[r.start:]...), r.buf[:r.start]...)
	}
	dropped := r.dropped
	*r = ring{size: r.size}
	return out, dropped
}

// len is the number of bytes held.
func (r *ring) len() int { return len(r.buf) }
