package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// visible returns the visible screen only, as text.
func (s *session) visible() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sb strings.Builder
	for _, l := range strings.Split(s.em.String(), "\n") {
		sb.WriteString(strings.TrimRight(l, " "))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// screen returns the scrollback and the visible screen as text.
func (s *session) screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sb strings.Builder
	for _, l := range s.em.Scrollback().Lines() {
		sb.WriteString(strings.TrimRight(l.String(), " "))
		sb.WriteByte('\n')
	}
	for _, l := range strings.Split(s.em.String(), "\n") {
		sb.WriteString(strings.TrimRight(l, " "))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// waitScreen polls until the screen holds one of the wanted strings.
func (s *session) waitScreen(ctx context.Context, timeout time.Duration, want ...string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		scr := s.screen()
		for _, w := range want {
			if strings.Contains(scr, w) {
				return nil
			}
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("wait for %q on screen: %w", want, err)
		}
	}
}

// settle waits until no output came for quiet, or max has passed.
func (s *session) settle(ctx context.Context, quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		last := s.lastOut
		s.mu.Unlock()
		if time.Since(last) >= quiet {
			return
		}
		if sleep(ctx, 50*time.Millisecond) != nil {
			return
		}
	}
}
