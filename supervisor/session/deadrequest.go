package session

import "github.com/wardenhq/warden/protocol"

// A warden killed (-9) between typing a checkpoint request into a TUI's
// input box and pressing its Enter (the profile's EnterDelay, 700 ms for
// the TUIs) leaves the request there, unsubmitted. The warden that takes
// the session back from the holder sees a draft in the box — never a turn
// boundary — and would put every request off for good: the agent answers
// no more, its task's checkpoints stop. Such a draft is that warden's own
// kind of text, for this session's task: it presses its Enter (Resubmit),
// once a session, as the request it is due to type anyway.

// finishDeadRequest queues the Enter of a checkpoint request for this
// session's task left unsubmitted in the input box of a session taken
// back, once; it reports whether it did (the request is then in flight).
// A draft of anything else stays a draft: the requests wait, as before.
func (s *Session) finishDeadRequest() bool {
	if s.cfg.SessionID == "" || s.cfg.Task == nil || s.deadRequest || s.app.turn {
		return false
	}
	task, ok := s.prof.RequestDraft(s.screen())
	if !ok || task != s.cfg.Task.ID {
		return false
	}
	s.deadRequest = true
	s.log.Info("the input box holds a checkpoint request a dead warden typed and did not submit: pressing its Enter", "task", task)
	s.input.queue <- typed{text: protocol.Request(task), request: true, finish: true,
		kv: []any{"session_id", s.id}, epoch: s.park.epoch.Load()}
	return true
}
