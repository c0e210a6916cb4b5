package supervisor

import (
	"context"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
)

// runSession starts one process for task (nil: no task) with prompt as its
// first prompt, and supervises it until it ends. exit is the process's.
func (a *agent) runSession(g *generation, task *config.Task, prompt string, attempt int) (runner.Exit, outcome) {
	t := a.team
	s := &session{a: a, g: g, task: task, id: newSessionID(), attempt: attempt, term: t.termOutput(),
		prof: profileFor(a.cfg.Profile, a.log), notify: make(chan struct{}, 1), started: t.clock.Now()}
	size := t.windowSize()
	reply := func(b []byte) { s.proc.Write(b) }
	if s.term != nil {
		reply = nil // the user's terminal answers the agent's queries itself
	}
	s.reader = protocol.NewReader(a.log, protocol.ReaderOptions{
		Mode: s.prof.Mode, Rows: int(size.Rows), Cols: int(size.Cols),
		OnBlock:    func(b protocol.Block) { s.push(readerEvent{block: &b}) },
		OnReject:   func(reason, text string) { s.push(readerEvent{reason: reason, text: text}) },
		OnComplete: func() { s.push(readerEvent{complete: true}) },
		Reply:      reply,
	})
	s.settle = newSettler(s.prof.Settle, s.settled)
	defer s.settle.stop()

	argv, env, err := a.commandLine()
	if err != nil {
		a.log.Error("agent command line", "error", err)
		s.reader.Close()
		return runner.Exit{Code: -1, Err: err}, outExited
	}
	proc, err := runner.Start(a.log, runner.Config{
		Name: a.cfg.Name, Argv: argv, Dir: a.cfg.Dir, Env: env, Size: size,
		LogPath: t.dir.LogPath(a.cfg.Name), Output: s,
	})
	if err != nil {
		a.log.Error("agent did not start", "error", err)
		s.reader.Close()
		return runner.Exit{Code: -1, Err: err}, outExited
	}
	s.proc = proc
	s.typing = make(chan string, 16)
	typistCtx, stopTypist := context.WithCancel(context.Background())
	s.stopTyping = stopTypist
	go s.typist(typistCtx)
	defer func() {
		stopTypist()
		close(s.typing)
	}()
	a.started(s)
	t.events.Emit(EvAgentStarted, a.cfg.Name, taskID(task), "pid", proc.Pid(), "attempt", attempt, "session_id", s.id)
	if task != nil {
		s.mon = newMonitor(t, turnQuiet(s.prof), s.started)
		s.typeText(prompt)
	}
	exit, out := s.loop()
	s.reader.Close()
	t.events.Emit(EvAgentExited, a.cfg.Name, taskID(task), "pid", proc.Pid(), "code", exit.Code,
		"signal", signalName(exit.Signal), "exit", exit.String(), "session_id", s.id)
	return exit, out
}

// loop is the session's one goroutine: it owns the monitor and handles the
// reader's events, the process's exit and the team's stop.
func (s *session) loop() (runner.Exit, outcome) {
	t := s.a.team
	ask := s.g.checkpointing
	if s.task == nil {
		ask = nil
	}
	for {
		var wake <-chan time.Time
		if s.mon != nil {
			if until, stalled := s.tick(); stalled {
				return s.stopProc(t.shutdownTimeoutCtx()), outStalled
			} else if !until.IsZero() {
				wake = t.clock.After(until.Sub(t.clock.Now()))
			}
		}
		select {
		case <-s.proc.Done():
			s.reader.Flush()
			if s.handle(s.take()) {
				return s.proc.Exit(), outDone
			}
			return s.afterExit(), outExited
		case <-s.g.stopping:
			return s.a.stop(s.g, s), outStopped
		case <-ask:
			ask = nil
			s.lastAsked = true
			s.mon.awaiting = true
			t.events.Emit(EvCheckpointRequested, s.a.cfg.Name, s.task.ID, "session_id", s.id, "trigger", "team_checkpoint")
			s.typeText(protocol.Request(s.task.ID))
		case <-s.notify:
			if s.handle(s.take()) {
				s.quit()
				return s.proc.Exit(), outDone
			}
		case <-wake:
		}
	}
}

// tick runs the monitor's due actions; it returns when to look again, or
// stalled when the agent must be restarted.
func (s *session) tick() (time.Time, bool) {
	t, name, task := s.a.team, s.a.cfg.Name, s.task.ID
	for {
		act, until := s.mon.next(t.clock.Now(), s.lastOutput())
		switch act {
		case actNone:
			return until, false
		case actRequest:
			s.a.log.Info("checkpoint requested", "task", task)
			t.events.Emit(EvCheckpointRequested, name, task, "session_id", s.id)
			s.typeText(protocol.Request(task))
		case actTimeout:
			s.a.log.Warn("checkpoint answer is late", "task", task, "checkpoint_timeout", t.cfg.CheckpointTimeout)
			t.events.Emit(EvCheckpointTimeout, name, task, "checkpoint_timeout", t.cfg.CheckpointTimeout.String())
			t.printf("WARNING: %s did not answer the checkpoint request for %s within %s\n", name, task, t.cfg.CheckpointTimeout)
		case actStale:
			s.a.log.Warn("agent is stale", "task", task, "stale_warning", t.cfg.StaleWarning)
			t.events.Emit(EvAgentStale, name, task, "silent_for", t.cfg.StaleWarning.String())
			t.printf("WARNING: %s has been silent for %s on %s\n", name, t.cfg.StaleWarning, task)
		case actResume:
			s.resume()
		case actStalled:
			s.a.log.Error("agent stalled, restarting it from its checkpoint", "task", task, "stale_failure", t.cfg.StaleFailure)
			t.events.Emit(EvAgentStalled, name, task, "silent_for", t.cfg.StaleFailure.String())
			return time.Time{}, true
		}
	}
}

// afterExit stops what an exited agent left behind and returns its exit.
func (s *session) afterExit() runner.Exit {
	if s.proc.Alive() {
		s.a.stopLeftovers(s.g, s.proc)
	}
	return s.proc.Exit()
}

// quit ends the process of a finished task: the profile's quit, a short
// grace, then TERM and KILL at shutdown_timeout.
func (s *session) quit() {
	ctx, cancel := s.a.team.shutdownTimeoutCtx()
	s.askToQuit(ctx)
	s.proc.Stop(ctx)
	cancel()
}

// askToQuit types the profile's quit keys and gives the agent a moment to
// exit on its own before the TERM, within the shared deadline.
func (s *session) askToQuit(ctx context.Context) {
	// The quit keys must not land inside a submission in flight (a request
	// still in the input box would become "CHECKPOINT REQUEST: T7/exit").
	s.stopTyping()
	s.a.inputMu.Lock()
	defer s.a.inputMu.Unlock()
	for _, k := range s.prof.Quit() {
		select {
		case <-s.proc.Done():
			return
		case <-ctx.Done():
			return
		case <-time.After(k.Pause):
		}
		if _, err := s.proc.Write(k.Bytes); err != nil {
			return
		}
	}
	grace := time.NewTimer(quitGrace)
	defer grace.Stop()
	select {
	case <-s.proc.Done():
	case <-grace.C:
	case <-ctx.Done():
	}
}

// quitGrace is how long an agent asked to quit has before SIGTERM.
const quitGrace = 500 * time.Millisecond

func (s *session) stopProc(ctx context.Context, cancel context.CancelFunc) runner.Exit {
	defer cancel()
	return s.proc.Stop(ctx)
}

func taskID(t *config.Task) string {
	if t == nil {
		return ""
	}
	return t.ID
}
