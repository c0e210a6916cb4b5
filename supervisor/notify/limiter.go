package notify

import "time"

// key is what min_interval limits: one rule, one event name, one agent.
type key struct {
	rule         int
	event, agent string
}

// limiter allows one notification per key per interval and counts the ones
// it holds back. It is a plain object: the caller passes the time and holds
// the lock.
type limiter struct {
	last map[key]time.Time // when the last notification for the key went out
	held map[key]int       // held back since then
}

func newLimiter() *limiter {
	return &limiter{last: make(map[key]time.Time), held: make(map[key]int)}
}

// take decides whether a notification for k goes out at now. When it does,
// suppressed is how many were held back since the previous one, and the
// count starts again; when it does not, it is counted. An interval of 0 lets
// everything through.
func (l *limiter) take(k key, interval time.Duration, now time.Time) (send bool, suppressed int) {
	if last, ok := l.last[k]; ok && interval > 0 && now.Sub(last) < interval {
		l.held[k]++
		return false, 0
	}
	suppressed = l.held[k]
	delete(l.held, k)
	l.last[k] = now
	return true, suppressed
}

// hold counts a notification for k that could not be queued: the next one
// that goes out carries it.
func (l *limiter) hold(k key) { l.held[k]++ }
