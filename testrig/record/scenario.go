package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/testrig/fakeprovider"
)

// scenario scripts the fake model and the typing.
type scenario struct {
	name     string
	requests int // checkpoint requests to type

	mu      sync.Mutex
	answers int // checkpoint answers sent
	limitAt time.Time
}

const limitReset = 5 * time.Hour

func newScenario(name string) *scenario {
	n := 1
	if name == "repeat" {
		n = 2
	}
	return &scenario{name: name, requests: n}
}

// decide is the fake model: READY to the preamble, the block (or the usage
// limit) to a checkpoint request.
func (sc *scenario) decide(req fakeprovider.Request) fakeprovider.Answer {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !strings.Contains(req.Prompt, checkpointRequest) {
		return fakeprovider.Answer{Text: readyReply, InputTokens: 24000, OutputTokens: 20}
	}
	if sc.name == "usage-limit" {
		if sc.limitAt.IsZero() {
			sc.limitAt = time.Now().UTC()
		}
		return fakeprovider.Answer{Limit: &fakeprovider.Limit{Kind: fakeprovider.UsageLimit, ResetIn: limitReset}}
	}
	sc.answers++
	return fakeprovider.Answer{Text: expected.text(), InputTokens: 110000 + 10000*sc.answers, OutputTokens: 180}
}

func (sc *scenario) answered() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.answers
}

// drive types the preamble and the requests and waits for each answer;
// it returns the screen before quitting and the first step that failed.
func (sc *scenario) drive(ctx context.Context, logger hclog.Logger, s *session, srv *fakeprovider.Server, p profile) (string, error) {
	if err := s.waitScreen(ctx, 60*time.Second, p.ready...); err != nil {
		return s.screen(), fmt.Errorf("prompt not ready: %w", err)
	}
	s.settle(ctx, 500*time.Millisecond, 3*time.Second)
	if err := s.submit(ctx, preamble); err != nil {
		return s.screen(), err
	}
	if err := s.waitScreen(ctx, 30*time.Second, "READY."); err != nil {
		return s.screen(), fmt.Errorf("first answer: %w", err)
	}
	s.settle(ctx, 1500*time.Millisecond, 10*time.Second)
	for i := 1; i <= sc.requests; i++ {
		if err := s.submit(ctx, checkpointRequest); err != nil {
			return s.screen(), err
		}
		if err := sc.waitAnswered(ctx, srv, i); err != nil {
			return s.screen(), err
		}
		if sc.name != "usage-limit" {
			if err := s.waitScreen(ctx, 20*time.Second, fmt.Sprintf("Estimated Progress: %d%%", expected.ProgressPercent)); err != nil {
				logger.Warn("progress line not seen on screen", "error", err)
			}
		}
		s.settle(ctx, 2*time.Second, 20*time.Second)
	}
	return s.screen(), nil
}

// waitAnswered waits until the fake provider has answered the n-th
// checkpoint request (or sent the usage limit).
func (sc *scenario) waitAnswered(ctx context.Context, srv *fakeprovider.Server, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if sc.name == "usage-limit" {
			for _, r := range srv.Requests() {
				if r.Answered == "usage_limit" {
					return nil
				}
			}
		} else if sc.answered() >= n {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("checkpoint request %d not answered: %w", n, err)
		}
	}
}

// fill writes what a parser must find into the sidecar.
func (sc *scenario) fill(rec *recording) {
	if sc.name == "usage-limit" {
		rec.UsageLimit = &limitInfo{Kind: "usage_limit", ResetSeconds: int(limitReset.Seconds()),
			SentAt: sc.limitAt.Format(time.RFC3339)}
		return
	}
	for i := 0; i < sc.answered(); i++ {
		rec.Blocks = append(rec.Blocks, expected)
	}
}

func mustIndent(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	return b
}
