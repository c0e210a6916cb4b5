package holder

// ring keeps the newest bytes of an agent's output up to a fixed size:
// what does not fit pushes the oldest out, and how many bytes were pushed
// out is counted. It is not safe for concurrent use; the agent's lock
// guards it.
type ring struct {
	buf     []byte // len(buf) is the capacity
	start   int    // index of the oldest byte
	n       int    // bytes held
	dropped int64  // bytes pushed out since the last take
}

func newRing(size int) *ring {
	if size <= 0 {
		size = DefaultRingSize
	}
	return &ring{buf: make([]byte, size)}
}

// write appends b, dropping the oldest bytes that no longer fit.
func (r *ring) write(b []byte) {
	c := len(r.buf)
	if len(b) >= c { // only the tail of b survives
		r.dropped += int64(r.n) + int64(len(b)-c)
		copy(r.buf, b[len(b)-c:])
		r.start, r.n = 0, c
		return
	}
	if over := r.n + len(b) - c; over > 0 {
		r.dropped += int64(over)
		r.start = (r.start + over) % c
		r.n -= over
	}
	end := (r.start + r.n) % c
	k := copy(r.buf[end:], b)
	copy(r.buf, b[k:])
	r.n += len(b)
}

// take returns the bytes held, oldest first, and the count of bytes
// dropped before them, and empties the ring.
func (r *ring) take() ([]byte, int64) {
	out := make([]byte, r.n)
	k := copy(out, r.buf[r.start:min(r.start+r.n, len(r.buf))])
	copy(out[k:], r.buf[:r.n-k])
	dropped := r.dropped
	r.start, r.n, r.dropped = 0, 0, 0
	return out, dropped
}

// len is the number of bytes held.
func (r *ring) len() int { return r.n }
