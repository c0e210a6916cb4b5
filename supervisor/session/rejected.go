package session

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/internal/pace"
	"github.com/wardenhq/warden/protocol"
)

// A rejected answer. An agent that answers a request with a block warden
// cannot record (an unknown status, progress out of range, a placeholder, a
// line missing) has answered: the request is over (the monitor's rejected),
// and what it printed is its own output. The user is told on a WARNING
// line, with the reason, at most rejectBurst lines at once and then one per
// rejectEvery (a flood of bad blocks is counted, not printed); the agent is
// told what was wrong and asked again, once per request (actCorrect). Until
// it gives a valid checkpoint the stale and stuck warnings say that its
// answers were rejected, and why.

const (
	rejectBurst = 3
	rejectEvery = time.Minute
	// maxReasonLen: characters of a reason said or typed (a reason quotes
	// the agent's own value, which may be long).
	maxReasonLen = 200
)

// rejectNotice paces the lines that say an answer was rejected; unsaid
// counts those held back since the last line.
type rejectNotice struct {
	bucket *pace.Bucket
	unsaid int
}

// blockHead starts a rejected block's text (the reader's canonical form of
// its "CHECKPOINT: T1" line); late lines of a block read alone lack it.
const blockHead = "CHECKPOINT:"

// isBlockText reports whether the text of a rejection (OnReject) is a
// block, the agent's answer.
func isBlockText(text string) bool { return strings.HasPrefix(text, blockHead) }

// answerRejected handles a rejected block of the agent's: an answer to the
// request awaited, if one was, and a correction due; a WARNING line,
// paced.
func (s *Session) answerRejected(reason string) {
	if s.mon == nil {
		return
	}
	reason = clipReason(reason)
	now := s.cfg.Clock.Now()
	answered := s.mon.rejected(now, reason)
	correcting := answered && !s.mon.correctAt.IsZero()
	if ok, _ := s.rejects.bucket.Take(now); !ok {
		s.rejects.unsaid++
		return
	}
	then := ""
	if correcting {
		then = "; warden tells it what to fix and asks again"
	}
	if n := s.rejects.unsaid; n > 0 {
		then += fmt.Sprintf(" (%d more rejected since the last such line)", n)
		s.rejects.unsaid = 0
	}
	s.log.Warn("checkpoint answer rejected", "task", s.taskID(), "reason", reason, "answered_request", answered, console.Printed, true)
	s.r.Printf("WARNING: %s's checkpoint answer on %s was rejected: %s%s\n", s.cfg.Agent, s.cfg.Task.ID, reason, then)
}

// correction is what warden types to an agent whose answer to a request
// was rejected: a checkpoint request (a new epoch: the answer given again,
// corrected, counts), what was wrong, the values the required lines take,
// and the ask to answer again. Like every request it holds no
// "CHECKPOINT:" and no field with its colon (the reason's are left out),
// so that neither it nor its echo can read as a block.
func correction(task, reason string) string {
	return protocol.Request(task) + " — your last checkpoint block was not recorded: " +
		strings.ReplaceAll(reason, ":", "") + ". Status is one of " + strings.Join(protocol.Statuses, ", ") +
		"; Estimated Progress is a whole number from 0 to 100 followed by %. Answer again with the whole block, corrected."
}

// clipReason cuts a reason to maxReasonLen characters.
func clipReason(r string) string {
	if utf8.RuneCountInString(r) <= maxReasonLen {
		return r
	}
	return string([]rune(r)[:maxReasonLen-1]) + "…"
}

// staleCause is what the stale and stuck warnings add when the agent's
// answers were rejected: " (its answers were rejected: …)", or "".
func (m *monitor) staleCause() string {
	if m.staleWhy != "no_checkpoint" || m.rejectedWhy == "" {
		return ""
	}
	return " (its answers were rejected: " + m.rejectedWhy + ")"
}
