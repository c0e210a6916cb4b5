package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/testrig/fakeprovider"
)

// limitSpecs are the scenarios where the fake provider signals a usage
// limit as the vendor's server does (testrig/fakeprovider LimitWindow and
// Quota) and the recording goes on past the reset:
//
//   - claude/limit-subscriber: Claude Code signed in as a claude.ai
//     subscriber; the first answer reports 95 % of the 5-hour window, the
//     checkpoint request falls in a limit window of about 45 s, and Claude
//     continues by itself after the reset; its resent request is answered
//     with the block;
//   - codex/near-limit: every answer reports 95 %; Codex warns and opens its
//     model-switch dialog, answered "2" (keep the current model); then the
//     checkpoint request is answered;
//   - codex/limit-reset: the checkpoint request falls in a window of about
//     40 s; the model-switch dialog is answered "2", and after the reset
//     "continue" is typed and answered with the block;
//   - gemini/limit-reset: the same for the turn's model (Code Assist's
//     QUOTA_EXHAUSTED with a retry delay): "Usage limit reached … Access
//     resets at …"; after the reset Enter ("1. Keep trying") retries the
//     request, answered with the block.
var limitSpecs = map[string]limitSpec{
	"claude/limit-subscriber": {subscriber: true, quota: true, window: 45 * time.Second, resume: "auto",
		banner: "set to continue automatically at"},
	"codex/near-limit":   {quota: true, dialog: "Approaching rate limits", keep: "2"},
	"codex/limit-reset":  {window: 40 * time.Second, dialog: "Approaching rate limits", keep: "2", resume: "continue"},
	"gemini/limit-reset": {window: 40 * time.Second, dialog: "1. Keep trying", resume: "\r", modelWindow: true},
}

type limitSpec struct {
	subscriber  bool          // Claude: sign in as a claude.ai subscriber
	quota       bool          // every answer reports 95 % of the 5-hour window
	window      time.Duration // the checkpoint request falls in a window this long
	modelWindow bool          // the window covers the turn's model only
	dialog      string        // the limit dialog's row, waited for
	banner      string        // or the limit banner's, when there is no dialog
	keep        string        // typed to keep the current model
	resume      string        // after the reset: "auto" (the CLI), or typed
}

// limitRun scripts one limit scenario.
type limitRun struct {
	spec limitSpec
	srv  *fakeprovider.Server

	mu      sync.Mutex
	win     *fakeprovider.LimitWindow
	answers int
	screen  string // the visible screen with the limit dialog or banner
}

// shown waits for the limit's dialog or banner and keeps the screen.
func (lr *limitRun) shown(ctx context.Context, s *session, row string) error {
	if err := s.waitScreen(ctx, 30*time.Second, row); err != nil {
		return fmt.Errorf("limit dialog or banner: %w", err)
	}
	s.settle(ctx, time.Second, 5*time.Second)
	lr.mu.Lock()
	lr.screen = s.visible()
	lr.mu.Unlock()
	return nil
}

// decide answers the preamble READY, and the checkpoint request (or what
// comes after the limit: Claude's own continue, "continue") with the block;
// the window, not decide, refuses what falls in it.
func (lr *limitRun) decide(req fakeprovider.Request) fakeprovider.Answer {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if !strings.Contains(req.Prompt, checkpointRequest) && strings.TrimSpace(req.Prompt) != "continue" {
		return fakeprovider.Answer{Text: readyReply, InputTokens: 24000, OutputTokens: 20}
	}
	lr.answers++
	return fakeprovider.Answer{Text: expected.text(), InputTokens: 110000 + 10000*lr.answers, OutputTokens: 180}
}

func (lr *limitRun) answered() int {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.answers
}

// resetNear is a reset about d from now, 30 s past a minute (a clock shown
// to the minute reads the same however a CLI rounds it).
func resetNear(d time.Duration) time.Time {
	return time.Now().Add(d).Truncate(time.Minute).Add(30 * time.Second)
}

func (lr *limitRun) drive(ctx context.Context, logger hclog.Logger, s *session, p profile) error {
	if lr.spec.quota {
		lr.srv.SetQuota("", &fakeprovider.Quota{UsedPercent: 95, ResetAt: resetNear(2 * time.Hour)})
	}
	if err := s.waitScreen(ctx, 60*time.Second, p.ready...); err != nil {
		return fmt.Errorf("prompt not ready: %w", err)
	}
	s.settle(ctx, 500*time.Millisecond, 3*time.Second)
	if err := s.submit(ctx, preamble); err != nil {
		return err
	}
	if err := s.waitScreen(ctx, 30*time.Second, "READY."); err != nil {
		return fmt.Errorf("first answer: %w", err)
	}
	if lr.spec.window == 0 { // near the limit: the dialog comes with the answer
		return lr.keepAndAsk(ctx, s)
	}
	s.settle(ctx, 1500*time.Millisecond, 10*time.Second)
	reset := resetNear(lr.spec.window)
	w := &fakeprovider.LimitWindow{For: time.Until(reset), ResetAt: reset}
	if lr.spec.modelWindow {
		w.Model = lastModel(lr.srv)
	}
	lr.mu.Lock()
	lr.win = lr.srv.AddLimitWindow(w)
	lr.mu.Unlock()
	if err := s.submit(ctx, checkpointRequest); err != nil {
		return err
	}
	if err := lr.shown(ctx, s, lr.spec.dialog+lr.spec.banner); err != nil {
		return err
	}
	if lr.spec.dialog != "" {
		if lr.spec.keep != "" {
			if err := s.write(lr.spec.keep); err != nil {
				return err
			}
		}
	}
	logger.Info("waiting for the reset", "at", reset)
	if err := sleep(ctx, time.Until(reset)+5*time.Second); err != nil {
		return err
	}
	switch lr.spec.resume {
	case "auto":
	case "\r":
		if err := s.write("\r"); err != nil {
			return err
		}
	default:
		if err := s.submit(ctx, lr.spec.resume); err != nil {
			return err
		}
	}
	return lr.waitBlock(ctx, s, 150*time.Second)
}

// keepAndAsk answers the model-switch dialog with "keep", then asks for
// the checkpoint.
func (lr *limitRun) keepAndAsk(ctx context.Context, s *session) error {
	if err := lr.shown(ctx, s, lr.spec.dialog); err != nil {
		return err
	}
	if err := s.write(lr.spec.keep); err != nil {
		return err
	}
	s.settle(ctx, 1500*time.Millisecond, 10*time.Second)
	if err := s.submit(ctx, checkpointRequest); err != nil {
		return err
	}
	return lr.waitBlock(ctx, s, 30*time.Second)
}

// waitBlock waits for the block to be answered and drawn.
func (lr *limitRun) waitBlock(ctx context.Context, s *session, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for lr.answered() == 0 {
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return fmt.Errorf("the checkpoint request was never answered: %w", err)
		}
	}
	if err := s.waitScreen(ctx, 20*time.Second, fmt.Sprintf("Estimated Progress: %d%%", expected.ProgressPercent)); err != nil {
		return err
	}
	s.settle(ctx, 2*time.Second, 20*time.Second)
	return nil
}

// lastModel is the model of the CLI's last turn.
func lastModel(srv *fakeprovider.Server) string {
	main := srv.Ledger().Main()
	if len(main) == 0 {
		return ""
	}
	return main[len(main)-1].Model
}

// fill writes the limit into the sidecar: the window, the refused
// requests, the first request answered after it, and the block.
func (lr *limitRun) fill(rec *recording) {
	for i := 0; i < lr.answered(); i++ {
		rec.Blocks = append(rec.Blocks, expected)
	}
	lr.mu.Lock()
	w := lr.win
	lr.mu.Unlock()
	info := &limitInfo{Kind: "usage_limit", Resume: lr.spec.resume, Keep: lr.spec.keep, Screen: lr.screen}
	if lr.spec.quota {
		info.QuotaPercent = 95
	}
	if w != nil {
		info.SentAt = w.From.UTC().Format(time.RFC3339)
		info.ResetAt = w.ResetAt.UTC().Format(time.RFC3339)
		info.ResetSeconds = int(w.ResetAt.Sub(w.From).Seconds())
		info.Refused = w.Refused()
		for _, r := range lr.srv.Ledger().Main() {
			if r.At.After(w.ResetAt) {
				info.ResumedAt = r.At.UTC().Format(time.RFC3339Nano)
				info.ResumedAfterResetMS = r.At.Sub(w.ResetAt).Milliseconds()
				break
			}
		}
	}
	rec.UsageLimit = info
}
