package protocol

import "strings"

// ledger decides which sightings of a block are new answers. It is the
// exactly-once rule of the Reader:
//
//   - Epochs. Every CHECKPOINT REQUEST warden types (Reader.Typed) starts a new
//     epoch. Within one epoch each distinct content (Block.Key: task, status,
//     lists, progress, notes; independent of wraps, markers and indentation)
//     yields at most one record, however often it is repainted or re-read.
//
//   - Copies. In screen mode the Reader counts the copies of each content in
//     its view (captured scrolled-off rows plus the visible screen) at every
//     parse. A content is new only when its count rises above its baseline;
//     the baseline then becomes the count. A count that falls (a copy scrolled
//     out of the view, a TUI scrolled its transcript) lowers the baseline, so
//     a later fresh copy counts again.
//
//   - Requests. When warden types a request, the baseline of every content is
//     raised to its count at that moment (never lowered: a screen caught
//     between an erase and its redraw shows too few), without recording
//     anything: a block visible before the request is never the answer to it.
//     The same content answered again after the request adds a copy, and
//     counts.
//
//   - Echo. The text warden typed (Reader.Typed) is remembered, in canonical
//     form (markers, bullets, wraps and spacing removed), for the last 16
//     texts. A block, valid or not, whose canonical text occurs inside one of
//     them is warden's own echo and is never reported. An agent that answers
//     with exactly the text of a block warden typed to it (an unchanged
//     checkpoint quoted in a handoff) is therefore not recorded; any change
//     to any field makes it a new answer.
//
//   - Records. A valid block that passed the rules above is a record unless
//     its content was recorded before in this epoch, or was recorded before
//     and is not the latest record (an older answer redrawn after a later
//     one): an agent answering again unchanged repeats its latest
//     checkpoint, never one it has since moved past.
//
//   - Hooks. A CLI's hook reports the answer of the turn that just ended,
//     and may arrive after warden typed the next request: its block is the
//     same answer as one recorded in the epoch before. Hook text goes
//     through the same records (Reader.Offer), so one answer seen on the
//     screen and through a hook is one record, whichever comes first.
//
// In lines mode every finished block is a fresh copy (plain output is never
// repainted), so only the epoch, echo and record rules apply.
type ledger struct {
	epoch    int
	base     map[string]int // copies accounted for, per content key
	recorded map[string]int // content key -> epoch it was last reported in
	records  map[string]int // content key -> epoch it was last recorded in
	latest   string         // content key of the latest record
	typed    []string       // canonical words of recently typed texts
}

const (
	maxTyped      = 16
	maxTypedBytes = 1 << 20
)

func newLedger() *ledger {
	return &ledger{base: map[string]int{}, recorded: map[string]int{}, records: map[string]int{}}
}

// newRequest starts a new epoch; counts is the current view (screen mode).
func (l *ledger) newRequest(counts map[string]int) {
	l.epoch++
	clear(l.recorded)
	if counts != nil {
		// Never lower a baseline here: a request typed while the program is
		// between erasing and redrawing its screen sees fewer copies than
		// there are, and the redraw would then count as a fresh answer.
		// Counts that really fell were lowered by the parses before.
		for k, n := range counts {
			l.base[k] = max(l.base[k], n)
		}
	}
}

// addTyped remembers text warden typed, as canonical words.
func (l *ledger) addTyped(words string) {
	if len(words) > maxTypedBytes {
		words = words[len(words)-maxTypedBytes:]
	}
	l.typed = append(l.typed, words)
	if len(l.typed) > maxTyped {
		l.typed = l.typed[1:]
	}
}

// isEcho reports whether a candidate's canonical words occur in typed text.
func (l *ledger) isEcho(words string) bool {
	if words == "" {
		return false
	}
	for _, t := range l.typed {
		if strings.Contains(t, words) {
			return true
		}
	}
	return false
}

// once reports whether key has not been reported in this epoch, and marks it.
func (l *ledger) once(key string) bool {
	if e, ok := l.recorded[key]; ok && e == l.epoch {
		return false
	}
	l.recorded[key] = l.epoch
	return true
}

// record decides whether a valid block with content key is a new record,
// seen on the screen (or in lines) or, with hook, through a CLI's hook; a
// new one is marked as the latest record.
func (l *ledger) record(key string, hook bool) bool {
	if e, ok := l.records[key]; ok {
		if e == l.epoch || key != l.latest || (hook && e == l.epoch-1) {
			return false
		}
	}
	l.records[key] = l.epoch
	l.latest = key
	return true
}

// grown is a content that gained copies above its baseline.
type grown struct {
	key string
	n   int // copies above the baseline
}

// observe takes the copy counts of a whole view, with its keys in the order
// they first appear, and returns the keys that gained copies, in that order.
func (l *ledger) observe(order []string, counts map[string]int) []grown {
	for k, b := range l.base {
		if n := counts[k]; n < b {
			if n == 0 {
				delete(l.base, k)
			} else {
				l.base[k] = n
			}
		}
	}
	var out []grown
	for _, k := range order {
		if n := counts[k]; n > l.base[k] {
			out = append(out, grown{key: k, n: n - l.base[k]})
			l.base[k] = n
		}
	}
	return out
}
