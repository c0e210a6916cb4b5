package session

import (
	"context"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/event"
)

// quitGrace is how long an agent asked to quit has before SIGTERM.
const quitGrace = 500 * time.Millisecond

// shutdownCtx bounds stopping this session alone by shutdown_timeout.
func (s *Session) shutdownCtx() (context.Context, context.CancelFunc) {
	return clock.WithTimeout(context.Background(), s.cfg.Clock, s.cfg.Timers.ShutdownTimeout)
}

// quit ends the process of a finished task: the profile's quit, a short
// grace, then TERM and KILL at shutdown_timeout.
func (s *Session) quit() {
	s.thaw()
	ctx, cancel := s.shutdownCtx()
	defer cancel()
	s.askToQuit(ctx)
	s.proc.Stop(ctx)
}

// stopStalled stops a stalled agent (TERM, then KILL at shutdown_timeout).
func (s *Session) stopStalled() runner.Exit {
	ctx, cancel := s.shutdownCtx()
	defer cancel()
	return s.proc.Stop(ctx)
}

// stopForTeam ends the process for a stopping team: the profile's quit,
// TERM to its group, then KILL at the team's shared shutdown deadline (or at
// once when forced).
func (s *Session) stopForTeam() runner.Exit {
	s.thaw() // a parked CLI takes its quit keys; TERM is followed by CONT anyway
	s.r.Stopping()
	ctx := s.cfg.Team.ShutdownCtx()
	if ctx.Err() == nil {
		s.askToQuit(ctx)
	}
	exit := s.proc.Stop(ctx)
	if ctx.Err() != nil {
		why := "shutdown_timeout passed"
		if ctx.Err() == context.Canceled {
			why = "forced by a second signal"
		}
		s.log.Warn("agent force terminated", "pid", s.proc.Pid(), "reason", why)
		s.forced = true
		s.r.Event(event.AgentForceTerminated, "pid", s.proc.Pid(), "reason", why)
	}
	if s.proc.Alive() {
		s.log.Error("process group still has members after kill", "pgid", s.proc.Pid())
		s.proc.Kill()
	}
	s.recordLastAnswers()
	return exit
}

// recordLastAnswers records the answers the agent finished while the team
// stopped it — after the last call's checkpoint_timeout, during its quit
// keys and grace (a TUI slowed down by a loaded machine drew one for 4 s):
// its output is read to the end, and the valid blocks it holds that are
// not recorded yet are. Nothing else of it is acted on: the agent is gone.
func (s *Session) recordLastAnswers() {
	if s.cfg.Task == nil {
		return
	}
	s.ending = true
	s.reader.Flush()
	var blocks []readerEvent
	if s.pace.held != nil {
		blocks = append(blocks, readerEvent{block: s.pace.held})
		s.pace.held = nil
	}
	for _, e := range s.take() {
		if e.block != nil {
			blocks = append(blocks, e)
		}
	}
	for _, e := range blocks {
		s.log.Info("an answer the agent finished while it was stopped: recorded", "task", e.block.Task)
		s.onBlock(*e.block)
	}
}

// askToQuit types the profile's quit keys and gives the agent a moment to
// exit on its own before the TERM, within the deadline of ctx.
func (s *Session) askToQuit(ctx context.Context) {
	// The quit keys must not land inside a submission in flight (a request
	// still in the input box would become "CHECKPOINT REQUEST: T7/exit").
	s.input.stop()
	if s.dialog.up.Load() {
		return // never type into a dialog: the TERM follows
	}
	s.input.mu.Lock()
	defer s.input.mu.Unlock()
	for _, k := range s.prof.Quit() {
		pause := s.cfg.Clock.NewTimer(k.Pause)
		select {
		case <-s.proc.Done():
			pause.Stop()
			return
		case <-ctx.Done():
			pause.Stop()
			return
		case <-pause.C():
		}
		if _, err := s.proc.Write(k.Bytes); err != nil {
			return
		}
	}
	grace := s.cfg.Clock.NewTimer(quitGrace)
	defer grace.Stop()
	select {
	case <-s.proc.Done():
	case <-grace.C():
	case <-ctx.Done():
	}
}

// afterExit stops what an exited agent left behind and returns its exit.
func (s *Session) afterExit() runner.Exit {
	if s.proc.Alive() {
		s.stopLeftovers()
	}
	return s.proc.Exit()
}

// stopLeftovers ends what an exited agent left running in its group or
// escaped from it (a background server, a stray grandchild): TERM now, KILL
// after shutdown_timeout, or at the team's own deadline if that comes first.
func (s *Session) stopLeftovers() {
	s.log.Warn("agent exited and left processes behind, stopping them", "pgid", s.proc.Pid())
	ctx, cancel := s.shutdownCtx()
	defer cancel()
	go func() {
		select {
		case <-s.cfg.Team.Stopping():
			select {
			case <-s.cfg.Team.ShutdownCtx().Done():
				cancel()
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}()
	if s.proc.Stop(ctx); ctx.Err() != nil {
		s.r.Event(event.AgentForceTerminated, "pid", s.proc.Pid(), "reason", "left processes behind")
	}
}

// killWhenTold kills the process's group, descendants and escapees when
// the team kills every session (its stop's deadline passed, or a second
// signal) while the process still runs — whatever the session's loop is
// doing at that moment. It returns when the process is gone.
func (s *Session) killWhenTold() {
	select {
	case <-s.proc.Done():
	case <-s.cfg.Team.Killing():
		if err := s.proc.Kill(); err != nil {
			s.log.Error("kill at the stop deadline failed", "error", err)
		}
	}
}
