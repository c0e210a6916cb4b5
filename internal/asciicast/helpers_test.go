package asciicast

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
)

var testLog = hclog.NewNullLogger()

// replaced is what a recording must show of raw output: valid UTF-8 as it
// is, every byte outside a valid sequence as U+FFFD.
func replaced(raw []byte) string {
	var b strings.Builder
	for len(raw) > 0 {
		r, n := utf8.DecodeRune(raw)
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\ufffd")
		} else {
			b.Write(raw[:n])
		}
		raw = raw[n:]
	}
	return b.String()
}

// recordings of the real CLIs (protocol/testdata): TUIs that redraw, with
// colours, box drawing and wide characters.
var cliStreams = []string{
	"../../protocol/testdata/cli-claude/checkpoint-200x50.raw",
	"../../protocol/testdata/cli-codex/checkpoint-200x50.raw",
	"../../protocol/testdata/cli-gemini/checkpoint-200x50.raw",
}

// chunked cuts raw into random pieces of 1 to 700 bytes, as reads of a pty
// would: multi-byte characters and escape sequences fall across the cuts.
func chunked(raw []byte, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out [][]byte
	for len(raw) > 0 {
		n := min(1+rng.IntN(700), len(raw))
		out = append(out, raw[:n])
		raw = raw[n:]
	}
	return out
}
