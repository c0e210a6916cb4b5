package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// A url rule's POSTs go through a queue and a goroutine of the rule's own:
// a receiver that hangs holds up its own rule's notifications, never the
// team, the commands or another url.
const (
	postQueue    = 32
	postAttempts = 4               // the first POST and three retries
	postBackoff  = 1 * time.Second // before the first retry; doubled before each next one
	maxReply     = 64 << 10        // read of a receiver's answer, then it is dropped
)

// poster delivers one url rule's notifications, one at a time.
type poster struct {
	rule  int
	queue chan job
	// failing: the last delivery failed, and that was logged; the
	// failures after it are logged at debug level only, until one gets
	// through. lost counts them.
	failing bool
	lost    int
}

// postClient makes every POST: redirects are not followed (a receiver that
// moved is a failure the log names, not a POST sent somewhere else).
var postClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// poster runs the rule's deliveries until its queue is closed and drained;
// after an abort it drops the rest.
func (n *Notifier) postWorker(p *poster) {
	defer n.wg.Done()
	for j := range p.queue {
		select {
		case <-n.abort:
			n.count(func(s *Stats) { s.Dropped++ })
			continue
		default:
		}
		n.deliver(p, j)
	}
}

// deliver POSTs j to the rule's url: retried with backoff (postBackoff,
// doubled each time) on a network error, a timeout, 408, 429 or 5xx, at
// most postAttempts times; a 4xx other than those is not retried.
func (n *Notifier) deliver(p *poster, j job) {
	r := &n.rules[p.rule]
	j.dialog = n.dialogText(j)
	b, h := body(r.Format, n.message(j))
	wait := postBackoff
	for attempt := 1; ; attempt++ {
		status, err := n.post(r, b, h)
		if err == nil && status/100 == 2 {
			n.delivered(p, j, attempt)
			return
		}
		retry := err != nil || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
		why := describe(status, err)
		if !retry || attempt == postAttempts {
			n.postFailed(p, j, why, attempt)
			return
		}
		n.count(func(s *Stats) { s.Retried++ })
		n.log.Debug("notify url: retrying", "rule", r.Pos.String(), "host", host(r.URL), "attempt", attempt, "why", why, "in", wait)
		select {
		case <-n.clk.After(wait):
		case <-n.abort:
			n.postFailed(p, j, "warden stopped before it got through", attempt)
			return
		}
		wait *= 2
	}
}

// post makes one POST, bounded by the rule's timeout (and by Close).
func (n *Notifier) post(r *config.Notify, b []byte, h map[string]string) (int, error) {
	ctx, cancel := context.WithTimeout(n.posts, r.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(b))
	if err != nil {
		return 0, errors.New("the url cannot be asked")
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "warden")
	resp, err := postClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text quotes the url, which may hold a secret
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within the timeout (%s)", r.Timeout)
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxReply))
	resp.Body.Close()
	return resp.StatusCode, nil
}

func describe(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
}

// delivered counts a POST that got through, and says so once after
// failures.
func (n *Notifier) delivered(p *poster, j job, attempts int) {
	r := &n.rules[p.rule]
	n.count(func(s *Stats) { s.Posted++ })
	if p.failing {
		n.log.Info("notify url reached again", "rule", r.Pos.String(), "host", host(r.URL), "lost_meanwhile", p.lost)
		p.failing, p.lost = false, 0
	} else {
		n.log.Debug("notify url: posted", "rule", r.Pos.String(), "event", j.ev.Name, "agent", j.ev.Agent, "attempts", attempts)
	}
	n.afterPost(j, nil)
}

// postFailed counts a notification that did not get through; the first of
// a run of failures is logged as a warning, the rest at debug level.
func (n *Notifier) postFailed(p *poster, j job, why string, attempts int) {
	r := &n.rules[p.rule]
	n.count(func(s *Stats) { s.Failed++ })
	kv := []any{"rule", r.Pos.String(), "host", host(r.URL), "event", j.ev.Name, "agent", j.ev.Agent, "attempts", attempts, "why", why}
	if !p.failing {
		n.log.Warn("notify url failed; until one gets through, its failures are logged at debug level only", kv...)
		p.failing = true
	} else {
		n.log.Debug("notify url failed again", kv...)
	}
	p.lost++
	n.afterPost(j, errors.New(why))
}

func (n *Notifier) afterPost(j job, err error) {
	n.mu.Lock()
	f := n.onPost
	n.mu.Unlock()
	if f != nil {
		f(j, err)
	}
}

func (n *Notifier) count(f func(*Stats)) {
	n.mu.Lock()
	f(&n.stats)
	n.mu.Unlock()
}

// host is the url's host, all the log says of it: its path or query may
// be a secret (an ntfy topic, a Slack webhook's key).
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "?"
	}
	return u.Host
}
