package session

import "github.com/wardenhq/warden/protocol"

// A block read while the CLI's turn still runs. A TUI slowed down mid-answer
// (a loaded machine: Copilot CLI drew "Status: implementi" and then nothing
// for more than two settles, load 29 on 2 cores) shows a block without its
// last lines, and the reader, having read it the same twice, rejects it.
// The agent gave no wrong answer: warden read it too soon. While the
// profile sees the turn running, such a rejection is held; a block recorded
// meanwhile (the answer drawn whole) drops it, and the first settle with no
// turn running says it (the block stayed incomplete: the agent's answer, and
// wrong). Plain agents and rejections of text that is not a block (late
// lines) are said at once, as before.

// templateDrawnAgain reports whether e rejects the first prompt's block
// template (its placeholders) in a session taken back from the holder: its
// CLI draws its transcript again for the new warden's emulator, which
// never saw the prompt typed and so reads the template in it as a block.
// No answer of the agent's: not rejected, nobody told.
func (s *Session) templateDrawnAgain(e readerEvent) bool {
	if s.cfg.SessionID == "" || !protocol.IsTemplate(e.text) {
		return false
	}
	s.log.Info("the first prompt's block template drawn again after the take-back: no answer, not rejected")
	return true
}

// holdRejection holds e, a rejection of the reader's, while the CLI's turn
// runs; it reports whether it did.
func (s *Session) holdRejection(e readerEvent) bool {
	if s.prof.Mode != protocol.ModeScreen || !isBlockText(e.text) || !s.prof.Busy(s.screen()) {
		return false
	}
	s.log.Debug("a block read while the turn runs did not parse: held until the turn is over", "reason", e.reason)
	s.heldReject = &e
	return true
}

// sayHeldRejection says the held rejection once no turn runs.
func (s *Session) sayHeldRejection() {
	if s.heldReject == nil || s.prof.Busy(s.screen()) {
		return
	}
	e := *s.heldReject
	s.heldReject = nil
	s.reject(e.reason, e.text, true)
}
