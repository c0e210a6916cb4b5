package session

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/event"
)

// Run starts the process and supervises it until it ends; exit is the
// process's.
func (s *Session) Run() (runner.Exit, Outcome) {
	c := s.cfg
	s.started = c.Clock.Now()
	defer func() {
		s.tap.close()
		close(s.ended)
	}()
	reply := func(b []byte) {
		if <-s.procReady; s.proc != nil {
			// Every byte warden sends besides its typing is in the debug log:
			// a reply a CLI reads as keys while a dialog is up would answer it.
			s.log.Debug("terminal reply to the agent", "bytes", strconv.Quote(string(b)))
			s.proc.Write(b)
		}
	}
	if c.Term != nil || s.prof.DropReplies {
		reply = nil // the user's terminal answers the agent's queries itself, or none is wanted
	}
	s.openReader(reply)
	defer s.settle.stop()
	if c.SessionID != "" && s.prof.TurnsBracketedOn() {
		// Taken back: the CLI turned bracketed paste on long before this
		// warden read it, and does not say so again (what the holder kept,
		// read next, may turn it off).
		s.modes.Write([]byte("\x1b[?2004h"))
	}
	s.startRecording()
	defer s.stopRecording() // after the last output: Run returns once the process's output is drained

	argv := s.prof.Command(c.Argv)
	if c.Channel != nil {
		argv = c.Channel.argv(argv)
	}
	start := c.Start
	if start == nil {
		start = StartProcess
	}
	proc, err := start(s.log, runner.Config{
		Name: c.Agent, Argv: argv, Dir: c.Dir, Env: s.prof.Env(c.Env), Size: c.Size,
		LogPath: c.LogPath, LogMaxSize: c.LogMaxSize, LogKeep: c.LogKeep, OnLogError: s.logError, Output: s,
		Cgroup: c.Cgroup, Scoped: c.Scoped, Walls: c.Walls,
	})
	started := func() { // the agent holds its team's stop off until then
		if c.Started != nil {
			c.Started()
		}
	}
	if err != nil {
		started()
		close(s.procReady)
		s.log.Error("agent did not start", "error", err)
		s.reader.Close()
		return runner.Exit{Code: -1, Err: fmt.Errorf("start %s: %w", c.Agent, err)}, Exited
	}
	s.proc = proc
	close(s.procReady)
	if c.SessionID != "" {
		// A group the dead warden stopped at its account's limit goes on;
		// parked again at once (holdNew) if its account still is.
		if err := proc.Signal(syscall.SIGCONT); err != nil {
			s.log.Warn("a session taken back not continued", "error", err)
		}
	}
	go s.killWhenTold()
	if c.Channel != nil {
		go s.joinChannel()
	}
	s.input.queue = make(chan typed, 16)
	typistCtx, stopTypist := context.WithCancel(context.Background())
	s.input.stop = stopTypist
	go s.typist(typistCtx)
	defer stopTypist()
	s.r.Started(s)
	if c.SessionID != "" { // taken back from the holder, not started
		s.r.Event(event.AgentStarted, "pid", proc.Pid(), "attempt", c.Attempt, "session_id", s.id, "taken_back", true)
	} else {
		s.r.Event(event.AgentStarted, "pid", proc.Pid(), "attempt", c.Attempt, "session_id", s.id)
	}
	started() // agent_started is written before any team_checkpoint_started that comes after
	if c.Task != nil {
		since := s.started
		if !c.Since.IsZero() && c.Since.Before(since) {
			since = c.Since // taken back: the clocks go on
		}
		s.mon = newMonitor(c.Timers, turnQuiet(s.prof), since)
		if c.SessionID != "" && !c.Awaited.IsZero() {
			// Taken back mid-turn: the answer to the dead warden's request
			// is what the turn makes; nothing is typed into it.
			s.mon.awaiting, s.mon.requestedAt = true, c.Awaited
		}
		s.mon.userDriven = c.Term != nil // warden wrap (wrapuser.go)
		if c.Prompt != "" {
			s.input.queue <- typed{text: c.Prompt, prompt: true}
		}
	}
	exit, out := s.loop()
	s.reader.Close()
	s.finalUsage()
	s.r.Event(event.AgentExited, "pid", proc.Pid(), "code", exit.Code,
		"signal", signalName(exit), "exit", exit.String(), "session_id", s.id)
	return exit, out
}

// openReader sets up what reads the agent's output: the protocol reader,
// whose callbacks go to the loop's inbox, and the settle timer that has it
// read the screen once the output is quiet; reply takes the emulator's
// answers to the agent's terminal queries (nil: none).
func (s *Session) openReader(reply func([]byte)) {
	c := s.cfg
	s.reader = protocol.NewReader(s.log, protocol.ReaderOptions{
		Mode: s.prof.Mode, Rows: int(c.Size.Rows), Cols: int(c.Size.Cols),
		OnBlock: func(b protocol.Block) {
			s.ownOutput()
			s.push(readerEvent{block: &b})
		},
		OnReject: func(reason, text string) {
			if isBlockText(text) {
				s.ownOutput()
			}
			s.push(readerEvent{reason: reason, text: text})
		},
		OnComplete: func() { s.push(readerEvent{complete: true}) },
		Reply:      reply,
		Composer:   s.prof.Composer,
	})
	s.tap.lines = s.prof.Mode == protocol.ModeLines
	s.settle = newSettler(s.prof.Settle, s.prof.SettleMax, c.Clock, s.settled)
}

// loop is the session's one goroutine: it owns the monitor and handles the
// reader's events, the process's exit and the team's stop.
func (s *Session) loop() (runner.Exit, Outcome) {
	ask := s.cfg.Team.LastCall()
	if s.cfg.Task == nil {
		ask = nil
	}
	defer func() { s.reportDrops(s.pace.drops, true) }()
	al := alarms{c: s.cfg.Clock}
	defer al.stop()
	for {
		al.stop() // the last turn's timers
		if s.restartDue() {
			s.quit()
			return s.proc.Exit(), Restarted
		}
		if why := s.usageTick(); why != "" {
			s.stopOverspent(why)
			return s.proc.Exit(), Overspent
		}
		var wake <-chan time.Time
		if s.restart.asked {
			wake = al.at(s.restart.by)
		}
		if s.mon != nil {
			s.awaitCLI(s.cfg.Clock.Now())
			until, stalled := s.tick()
			s.publishDue()
			if stalled {
				return s.stopStalled(), Stalled
			}
			if t := s.parkWake(); !t.IsZero() {
				until = earliest(nonZero(until, t), t)
			}
			if s.cfg.TimeLeft > 0 {
				// Time parked at the account's limit is not time worked.
				end := s.started.Add(s.cfg.TimeLeft + s.parkedFor(s.cfg.Clock.Now()))
				if !s.cfg.Clock.Now().Before(end) {
					s.log.Warn("the task's max_time ran out: stopping the agent", "task", s.cfg.Task.ID)
					return s.stopStalled(), OverTime
				}
				until = earliest(nonZero(until, end), end)
			}
			if due := s.denyDue(); !due.IsZero() {
				if !s.cfg.Clock.Now().Before(due) {
					s.deny()
					continue
				}
				until = earliest(nonZero(until, due), due)
			}
			if s.restart.asked {
				until = earliest(nonZero(until, s.restart.by), s.restart.by)
			}
			if !until.IsZero() {
				wake = al.at(until)
			}
		}
		paced, flooded := s.floodWakes(&al)
		select {
		case <-s.proc.Done():
			s.reader.Flush()
			s.pace.exiting = true // what is left is recorded now, without pace
			if s.work(s.take()) {
				return s.proc.Exit(), Done
			}
			return s.afterExit(), Exited
		case <-s.cfg.Team.Stopping():
			return s.stopForTeam(), Stopped
		case <-ask:
			ask = nil
			select {
			case <-s.cfg.Team.Stopping(): // a stop without a last call (warden stop --now)
				return s.stopForTeam(), Stopped
			default:
			}
			if s.waiting() {
				s.log.Info("no last checkpoint request: the agent waits on a dialog")
				continue
			}
			if s.park.phase != parkFree {
				s.log.Info("no last checkpoint request: the agent is parked at its account's usage limit")
				continue
			}
			s.lastAsked = true
			if s.mon.awaiting {
				// A request is in flight: its answer, written now, is the
				// last checkpoint. A second request would be answered
				// twice, the later answer after the team took the first
				// and stopped the agent: never recorded.
				s.log.Info("the request in flight answers the team checkpoint: none typed again")
				continue
			}
			s.mon.awaiting, s.mon.requestedAt = true, s.cfg.Clock.Now()
			s.typeRequest(protocol.Request(s.cfg.Task.ID), true, "session_id", s.id, "trigger", protocol.TriggerTeamCheckpoint)
		case <-s.inbox.notify:
			if s.teamStopping() {
				return s.stopForTeam(), Stopped // a stop never waits on a backlog
			}
			if s.work(s.take()) {
				s.quit()
				return s.proc.Exit(), Done
			}
		case <-paced:
			if s.work(nil) {
				s.quit()
				return s.proc.Exit(), Done
			}
		case v := <-s.inbox.verdicts:
			if s.verdict(v) {
				s.quit()
				return s.proc.Exit(), Done
			}
		case <-flooded:
			s.reportDrops(drops{}, false)
		case <-wake:
		}
	}
}

// alarms are the loop's timers of one turn, on the session's clock: each
// turn stops the last one's.
type alarms struct {
	c  clock.Clock
	ts []clock.Timer
}

// at is a channel that receives at t.
func (a *alarms) at(t time.Time) <-chan time.Time {
	tm := a.c.NewTimer(t.Sub(a.c.Now()))
	a.ts = append(a.ts, tm)
	return tm.C()
}

func (a *alarms) stop() {
	for _, t := range a.ts {
		t.Stop()
	}
	a.ts = a.ts[:0]
}

// tick runs the monitor's due actions; it returns when to look again, or
// stalled when the agent must be restarted.
func (s *Session) tick() (time.Time, bool) {
	c, name, task := s.cfg.Timers, s.cfg.Agent, s.cfg.Task.ID
	for {
		if s.mon.userDriven {
			s.mon.userAt = time.Unix(0, s.input.lastUser.Load())
		}
		act, until := s.mon.next(s.cfg.Clock.Now(), s.lastOutput())
		switch act {
		case actNone:
			return until, false
		case actRequest, actCorrect:
			if !s.prof.TurnEnded(s.screen()) || s.app.turn {
				if act == actRequest && s.finishDeadRequest() {
					continue // its Enter is pressed now: the request is in flight
				}
				// A TUI mid-turn, or with a draft in its box, or a turn its
				// app-server says runs: not a turn boundary, whatever the
				// quiet output said.
				s.mon.notYet(s.cfg.Clock.Now())
				continue
			}
			if act == actCorrect {
				s.log.Info("checkpoint asked again: the answer was rejected", "task", task, "reason", s.mon.rejectedWhy)
				s.typeRequest(correction(task, s.mon.rejectedWhy), false, "session_id", s.id, "correction", true)
				continue
			}
			s.log.Info("checkpoint requested", "task", task)
			s.typeRequest(protocol.Request(task), false, "session_id", s.id)
		case actNudge, actIdle:
			if !s.prof.TurnEnded(s.screen()) || s.app.turn {
				s.mon.idleNotYet(act, s.cfg.Clock.Now()) // at work: not idle
				continue
			}
			s.idleAct(act) // idle.go
		case actTimeout:
			s.log.Warn("checkpoint answer is late", "task", task, "checkpoint_timeout", c.CheckpointTimeout, console.Printed, true)
			s.r.Event(event.CheckpointTimeout, "checkpoint_timeout", c.CheckpointTimeout.String())
			s.r.Printf("WARNING: %s did not answer the checkpoint request for %s within %s\n", name, task, c.CheckpointTimeout)
		case actStale:
			what := "has shown no checkpoint for"
			switch {
			case s.mon.staleWhy == "silent":
				what = "has been silent for"
			case s.mon.rejectedWhy != "":
				what = "has given no valid checkpoint for"
			}
			s.log.Warn("agent is stale", "task", task, "why", s.mon.staleWhy, "stale_warning", c.StaleWarning, console.Printed, true)
			s.r.Event(event.AgentStale, s.whyFields(s.staleFor(c.StaleWarning)...)...)
			s.r.Printf("WARNING: %s %s %s on %s%s\n", name, what, c.StaleWarning, task, s.mon.staleCause())
		case actWarn:
			what := "shows no progress for"
			if s.mon.staleCause() != "" {
				what = "has given no valid checkpoint for"
			}
			s.log.Warn("agent looks stuck: asking it for a checkpoint before restarting it", "task", task, "stale_failure", c.StaleFailure, console.Printed, true)
			s.r.Event(event.AgentWarned, s.whyFields("no_progress_for", c.StaleFailure.String(), "session_id", s.id)...)
			restart, whyNot := s.afterStall()
			then := "asking it once more before a restart"
			if !restart {
				then = fmt.Sprintf("asking it once more; without an answer within %s it is stopped, not restarted (%s)", c.CheckpointTimeout, whyNot)
			}
			s.r.Printf("WARNING: %s %s %s on %s%s: %s\n", name, what, c.StaleFailure, task, s.mon.staleCause(), then)
			s.typeRequest(stuckRequest(task, c.StaleFailure, restart), true, "session_id", s.id, "stuck", true)
		case actStalled:
			then := "restarting it from its checkpoint"
			if restart, whyNot := s.afterStall(); !restart {
				then = "stopping it, not restarted (" + whyNot + ")"
			}
			s.log.Error("agent stalled: "+then, "task", task, "stale_failure", c.StaleFailure, "why", s.mon.staleWhy)
			s.r.Event(event.AgentStalled, s.whyFields(s.staleFor(c.StaleFailure)...)...)
			return time.Time{}, true
		}
	}
}

// whyFields are the fields kv of agent_stale, agent_warned or
// agent_stalled, then which signal made the agent stale (why: silent or
// no_checkpoint) and, when its answers were rejected, the last reason
// (rejected).
func (s *Session) whyFields(kv ...any) []any {
	kv = append(kv, "why", s.mon.staleWhy)
	if s.mon.staleCause() != "" {
		kv = append(kv, "rejected", s.mon.rejectedWhy)
	}
	return kv
}

// staleFor is how long that signal lasted, d: silent_for or
// no_checkpoint_for.
func (s *Session) staleFor(d time.Duration) []any {
	if s.mon.staleWhy == "no_checkpoint" {
		return []any{"no_checkpoint_for", d.String()}
	}
	return []any{"silent_for", d.String()}
}

func signalName(e runner.Exit) string {
	if e.Signal == 0 {
		return ""
	}
	return e.Signal.String()
}

// nonZero is t, or else when t is zero.
func nonZero(t, orElse time.Time) time.Time {
	if t.IsZero() {
		return orElse
	}
	return t
}

// logError reports, once, that the agent's terminal log cannot be written
// (a full disk), and once that it can again. Checkpoints do not depend on it.
func (s *Session) logError(err error) {
	if err != nil {
		s.r.Event(event.AgentLogFailed, "error", err.Error())
		s.r.Printf("WARNING: %s's terminal log cannot be written (%v): its output is not kept until it can\n", s.cfg.Agent, err)
		return
	}
	s.r.Event(event.AgentLogFailed, "error", "", "recovered", true)
	s.r.Printf("WARNING: %s's terminal log is written again\n", s.cfg.Agent)
}

// stuckRequest is the request typed to an agent that looks stuck: a
// checkpoint request (the ledger starts a new epoch), then why, and what
// follows without an answer (restart: a restart from its checkpoint).
func stuckRequest(task string, d time.Duration, restart bool) string {
	then := "Without an answer this session is restarted from your last checkpoint."
	if !restart {
		then = "Without an answer this session is stopped."
	}
	return protocol.Request(task) + " — warden has seen no progress from you for " + d.String() +
		": answer now with a checkpoint block; if you are stuck, say why under Blockers:. " + then
}

// afterStall says whether a stall of this session is followed by a
// restart, and if not why (Config.AfterStall).
func (s *Session) afterStall() (restart bool, why string) {
	if s.cfg.AfterStall == nil {
		return true, ""
	}
	return s.cfg.AfterStall()
}
