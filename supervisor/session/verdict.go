package session

// A task's verify runs off the session's loop: the agent runs it on a
// goroutine of its own after Record answered Verifying, and hands the
// verdict back through Verified; the loop takes it as one of its events.

// Verdict is what the agent made of a checkpoint record (Record), or of
// the verify it ran for one off the session's loop (Verified).
type Verdict struct {
	Saved     bool   // on disk: it counts (timers reset)
	Done      bool   // the task is done: quit
	Feedback  string // type this to the agent (a failed verify)
	Verifying bool   // the task's verify runs; its verdict comes through Verified
	// Drawn: an answer recorded already, drawn again on the screen of a
	// session taken back: no answer now (a request awaited still is).
	Drawn bool
}

// Verified hands the session's loop the verdict of the task's verify, which
// the agent ran off the loop after Record answered Verifying: Done ends the
// session (the agent is asked to quit), Feedback is typed to the agent at
// its next turn boundary. After the session ended it does nothing: the
// agent acts on the verdict itself.
func (s *Session) Verified(v Verdict) {
	select {
	case s.inbox.verdicts <- v:
	case <-s.ended:
	}
}

// verdict acts on the verdict of the task's verify: it reports whether the
// task is done; a failure's feedback is typed to the agent.
func (s *Session) verdict(v Verdict) bool {
	if v.Done {
		return true
	}
	if v.Feedback != "" {
		s.typeText(v.Feedback)
	}
	return false
}
