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
//     same answer as one recorded in the epoch before, as long as that
//     record has had no hook of its own yet (one hook a turn); once it has,
//     the same block through a hook is this epoch's answer (an agent that
//     answers every request the same, its echo and answer drawn in one
//     write, which the screen cannot tell from the answer before). Hook
//     text goes through the same records (Reader.Offer), so one answer seen
//     on the screen and through a hook is one record, whichever comes first.
//
//   - Amendments. A valid block whose required lines are those of the
//     latest record and whose optional lines (Blockers, Notes, Resume, the
//     seeds' lines, extra keys) only add to it — lines that came after a
//     pause, once the block had been read — is that answer completed, not a
//     new one: it is reported as an amendment of the latest record
//     (Block.Amends), when that record was made in this epoch (or the one
//     before, through a hook), or, in lines mode, when the late lines
//     continue the very block that was read. So is a block whose text (its
//     canonical words) continues the latest record's, its last word perhaps
//     drawn further: a TUI read while it drew a line in part ("Subt" of
//     "Subtasks:", read as more of the line above) and then drawn whole.
//
//   - Unsaved. A record the supervisor could not save (a full disk) is
//     forgotten (Reader.Forget): it does not count, and the same answer given
//     again is a record.
//
//   - Memory. The ledger remembers the newest maxRemembered contents recorded
//     and reported; an agent printing an endless stream of distinct blocks
//     makes it forget the oldest, not grow.
//
// In lines mode every finished block is a fresh copy (plain output is never
// repainted), so only the epoch, echo, record and amendment rules apply.
type ledger struct {
	epoch    int
	base     map[string]int // copies accounted for, per content key
	recorded *memory        // content key -> epoch it was last reported in
	records  *memory        // content key -> epoch it was last recorded in
	latest   string         // content key of the latest record ("": none)
	latestB  Block          // … its content
	latestE  int            // … the epoch it was recorded in
	latestW  string         // … its canonical words ("" through a hook)
	typed    []string       // canonical words of recently typed texts
	hooked   int            // the epoch of the latest record a hook has reported
}

const (
	maxTyped      = 16
	maxTypedBytes = 1 << 20
)

func newLedger() *ledger {
	return &ledger{base: map[string]int{}, recorded: newMemory(maxRemembered), records: newMemory(maxRemembered)}
}

// newRequest starts a new epoch; counts is the current view (screen mode).
func (l *ledger) newRequest(counts map[string]int) {
	l.epoch++
	l.recorded.clear()
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
	if e, ok := l.recorded.get(key); ok && e == l.epoch {
		return false
	}
	l.recorded.set(key, l.epoch)
	return true
}

// record decides whether valid block b, with content key and canonical
// words (its text; "" through a hook), is a new record, seen on the screen
// (or in lines) or, with hook, through a CLI's hook; late: it is a block of
// lines mode that late optional lines reopened. A new one is marked as the
// latest record, and reported as an amendment of the one before (amends)
// when it completes it.
func (l *ledger) record(b *Block, key, words string, hook, late bool) (isNew, amends bool) {
	if e, ok := l.records.get(key); ok {
		if hook && e >= l.epoch-1 && l.hooked < e {
			l.hooked = e // that answer's own hook, late or not
			return false, false
		}
		if e == l.epoch || key != l.latest {
			return false, false
		}
	}
	if hook {
		l.hooked = l.epoch
	}
	amends = l.latest != "" && completes(b, &l.latestB, words, l.latestW) &&
		(late || l.latestE == l.epoch || (hook && l.latestE == l.epoch-1))
	l.records.set(key, l.epoch)
	l.latest, l.latestB, l.latestE, l.latestW = key, *b, l.epoch, words
	return true, amends
}

// forget takes back the record of key (it was not saved): it does not
// count, and the same content is a record again.
func (l *ledger) forget(key string) {
	l.records.del(key)
	l.recorded.del(key)
	if l.latest == key {
		l.latest, l.latestB, l.latestW = "", Block{}, ""
	}
}

// unobserve takes n copies of key back off its baseline: the next observe
// reports them again if they are still there.
func (l *ledger) unobserve(key string, n int) {
	if l.base[key] -= n; l.base[key] <= 0 {
		delete(l.base, key)
	}
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
