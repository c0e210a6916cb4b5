package asciicast

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// utf8Carry holds the incomplete UTF-8 sequence at the end of one chunk of
// output until the next chunk completes it (at most 3 bytes), so that a
// character split across two reads is recorded whole.
type utf8Carry struct {
	b [utf8.UTFMax]byte
	n int
}

// split returns the part of src that can be encoded now, keeping a trailing
// incomplete (but so far valid) UTF-8 sequence back in c. When c already
// holds bytes, they are joined with src in *join (a buffer reused across
// calls), so that a character split across chunks decodes as one.
func (c *utf8Carry) split(src []byte, join *[]byte) []byte {
	if c.n > 0 {
		*join = append(append((*join)[:0], c.b[:c.n]...), src...)
		src = *join
		c.n = 0
	}
	// The last rune starts at most UTFMax-1 bytes before the end.
	for i := len(src) - 1; i >= 0 && i >= len(src)-(utf8.UTFMax-1); i-- {
		if !utf8.RuneStart(src[i]) {
			continue
		}
		if !utf8.FullRune(src[i:]) {
			c.n = copy(c.b[:], src[i:])
			src = src[:i]
		}
		break
	}
	return src
}

// take returns what is carried and forgets it (the output ended inside a
// character: the bytes are encoded as invalid).
func (c *utf8Carry) take() []byte {
	b := c.b[:c.n]
	c.n = 0
	return b
}

// hexDigits for \u00XX escapes.
const hexDigits = "0123456789abcdef"

// plain[b] is true for the ASCII bytes that go into a JSON string as they
// are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// Word-at-a-time tests on 8 bytes (the classic bit tricks): special's
// result has a byte's high bit set for each byte that does not go into a
// JSON string as it is (not ASCII, a control character, '"' or '\\'). Bits
// above the first such byte may be wrong (borrows), the lowest set bit is
// exact, and the result is 0 only if all 8 bytes are plain.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func hasZero(w uint64) uint64 { return (w - ones) & ^w & highs }

func special(w uint64) uint64 {
	return w&highs | (w-0x20*ones)&^w&highs | hasZero(w^('"'*ones)) | hasZero(w^('\\'*ones))
}

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, valid UTF-8 as it is, and every byte that is not part
// of a valid UTF-8 sequence replaced by U+FFFD. It allocates only when dst
// must grow. Plain ASCII is passed over 8 bytes at a time.
func appendString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is plain and not yet appended
	for i := 0; i < len(s); {
		for i+8 <= len(s) {
			if m := special(binary.LittleEndian.Uint64(s[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEvent appends one event line: [seconds, "code", data]\n.
func appendEvent(dst []byte, seconds float64, code byte, data []byte) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendFloat(dst, seconds, 'f', 6, 64)
	dst = append(dst, ',', ' ', '"', code, '"', ',', ' ')
	dst = appendString(dst, data)
	return append(dst, ']', '\n')
}
