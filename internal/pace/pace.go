// Package pace is a token bucket driven by the times it is given: a burst of
// Burst actions at once, then one per Every. It bounds what a flood can make
// warden do (records written, status files rewritten) without delaying
// anything in normal use, when the bucket is full.
package pace

import "time"

// Bucket is a token bucket. The zero value allows nothing; use New.
type Bucket struct {
	burst  int
	every  time.Duration
	tokens int
	last   time.Time // when tokens was last brought up to date
}

// New returns a full bucket of burst tokens, refilled one per every.
func New(burst int, every time.Duration) *Bucket {
	return &Bucket{burst: max(burst, 1), every: max(every, time.Nanosecond), tokens: max(burst, 1)}
}

// Take spends a token at now if there is one (true); else it reports when
// the next one comes.
func (b *Bucket) Take(now time.Time) (bool, time.Time) {
	b.refill(now)
	if b.tokens > 0 {
		b.tokens--
		return true, time.Time{}
	}
	return false, b.last.Add(b.every)
}

func (b *Bucket) refill(now time.Time) {
	if b.last.IsZero() {
		b.last = now
		return
	}
	if b.tokens >= b.burst {
		b.last = now
		return
	}
	if n := int(now.Sub(b.last) / b.every); n > 0 {
		b.tokens = min(b.burst, b.tokens+n)
		b.last = b.last.Add(time.Duration(n) * b.every)
		if b.tokens == b.burst {
			b.last = now
		}
	}
}
