package protocol

import "strings"

// A plain program's tty echoes what warden typed while the program already
// prints: its output can land inside the echo, anywhere (the fake agent's
// "working on it", printed on reading the first prompt's "Your task:" line,
// cut the template's "Files Modified: <" from "comma-separated paths, or
// none>" on a loaded machine). The cut echo is no longer a piece of the
// typed text, and read as a block it is one with placeholders or missing
// lines — a rejection the agent never wrote. Only the line after it tells
// it apart from an agent's own bad block that starts like the template
// ("CHECKPOINT: T1 / Status: testing"): there the echo carries on.
//
// So in lines mode a rejected block waits for the next line that is not
// blank (or a pause, a request, the end) before it is reported: if the
// block and that line are one piece of typed text with one run of other
// output inserted into it, it is warden's echo cut by the program, and is
// never reported. A valid block is never held back: only rejections wait.

// maxEchoShift bounds how far the inserted output may begin before the end
// of the longest stretch of the block that matches the typed text: its
// first bytes could match what the echo went on with.
const maxEchoShift = 64

// maxEchoLost is how many bytes of the echo the reading may have lost where
// the output went in (see cutEcho).
const maxEchoLost = 1

// holdReject keeps a rejected block (lines mode) until what follows it is
// seen; a block held before is reported first.
func (r *Reader) holdReject(c *candidate, words string) {
	r.release()
	r.suspect, r.suspectWords = c, words
}

// settle decides the held rejection with the line of output that followed
// it. A blank line decides nothing.
func (r *Reader) settle(next string) {
	if r.suspect == nil || strings.TrimSpace(next) == "" {
		return
	}
	// The line as the protocol reads it, and as written: a lone ">" (the
	// end of a placeholder) reads as an echo marker, and as nothing.
	read, written := canonicalWords([]string{next}, false), strings.Join(strings.Fields(next), " ")+" "
	if r.led.cutEcho(r.suspectWords, read) || (written != read && r.led.cutEcho(r.suspectWords, written)) {
		r.log.Debug("echo of typed text cut by the program's output, not a block", "reason", r.suspect.reason)
		r.suspect, r.suspectWords = nil, ""
		return
	}
	r.release()
}

// release reports the held rejection: nothing will continue it (a pause, a
// request typed, the end), or what did was not the echo.
func (r *Reader) release() {
	if r.suspect == nil {
		return
	}
	r.reject(r.suspect)
	r.suspect, r.suspectWords = nil, ""
}

func (r *Reader) reject(c *candidate) {
	r.log.Debug("checkpoint block rejected", "reason", c.reason)
	r.ev = append(r.ev, event{reason: c.reason, text: c.text()})
}

// cutEcho reports whether words (a block's canonical words) followed by
// after (the next line's) are a piece of a typed text into which one run of
// other text was inserted, inside the block: typed = A+B, words+after =
// A+X+B, with A and X not empty and B holding all of after.
//
// One byte of typed text may be missing where X went in: the echo of a
// placeholder's closing ">" cut off onto a line of its own reads as a
// prompt marker, which canonical form drops.
func (l *ledger) cutEcho(words, after string) bool {
	s := words + after
	first, _, _ := strings.Cut(s, " ")
	if first == "" || after == "" {
		return false
	}
	for _, t := range l.typed {
		for off := 0; off < len(t); {
			i := strings.Index(t[off:], first)
			if i < 0 {
				break
			}
			if cutAt(s, len(words), len(first), t[off+i:]) {
				return true
			}
			off += i + 1
		}
	}
	return false
}

// cutAt reports whether s (a block's words, the first nw bytes, and the
// next line's) is t's start with one run inserted before byte nw: A is a
// prefix of both, no shorter than the block's first word (nf bytes), X
// follows it in s, and the rest of s (all of the next line) continues t.
func cutAt(s string, nw, nf int, t string) bool {
	n := commonPrefix(s, t)
	for a := min(n, nw); a >= max(nf, n-maxEchoShift); a-- {
		for lost := 0; lost <= maxEchoLost && a+lost <= len(t); lost++ {
			rest := t[a+lost:]
			// B fits in what the typed text has left: a long block (a
			// hostile agent's) costs no more than that.
			for b := max(a+1, len(s)-len(rest)); b <= nw; b++ {
				i := strings.IndexByte(s[b:nw+1], rest[0])
				if i < 0 {
					break
				}
				if b += i; strings.HasPrefix(rest, s[b:]) {
					return true
				}
			}
		}
	}
	return false
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
