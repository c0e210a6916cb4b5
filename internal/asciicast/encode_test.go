//go:build !e2e

package asciicast

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// record writes chunks through a Writer into memory and returns the file.
func record(t testing.TB, chunks ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(testLog, &buf, Options{Cols: 80, Rows: 24, Term: "xterm-256color"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		w.Write(c)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// outputOf checks that every line of a recording is valid UTF-8 and valid
// JSON, and returns its output events' data joined.
func outputOf(t testing.TB, cast []byte) string {
	t.Helper()
	for i, line := range bytes.Split(bytes.TrimSuffix(cast, []byte("\n")), []byte("\n")) {
		if !utf8.Valid(line) || !json.Valid(line) {
			t.Fatalf("line %d is not valid UTF-8 JSON: %q", i+1, line)
		}
	}
	r, err := NewReader(bytes.NewReader(cast))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Code == Output {
			out.WriteString(ev.Data)
		}
	}
}

func TestMultibyteCharactersSplitAcrossChunksStayWhole(t *testing.T) {
	text := []byte("h\u00e9llo \u2733 \u4e16\u754c \U0001f389 \u2500\u2500 \x1b[38;5;252mok\x1b[39m\r\n")
	for cut := 0; cut <= len(text); cut++ {
		cast := record(t, text[:cut], text[cut:])
		if got := outputOf(t, cast); got != string(text) {
			t.Fatalf("cut at %d: %q, want %q", cut, got, text)
		}
		if bytes.Contains(cast, []byte("\ufffd")) {
			t.Fatalf("cut at %d: a replacement character in %s", cut, cast)
		}
	}
	var one [][]byte // every byte its own chunk
	for i := range text {
		one = append(one, text[i:i+1])
	}
	if got := outputOf(t, record(t, one...)); got != string(text) {
		t.Fatalf("byte by byte: %q", got)
	}
}

func TestInvalidBytesAreReplaced(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"a stray byte", []string{"a\xffb"}, "a\ufffdb"},
		{"a sequence broken by the next chunk", []string{"x\xe2\x82", "y"}, "x\ufffd\ufffdy"},
		{"cut short at the end", []string{"x\xf0\x9f"}, "x\ufffd\ufffd"},
		{"a lone continuation byte", []string{"\x80", "\x80z"}, "\ufffd\ufffdz"},
		{"surrogate halves", []string{"\xed\xa0\x80"}, "\ufffd\ufffd\ufffd"},
		{"a real replacement character", []string{"\ufffd"}, "\ufffd"},
	} {
		var chunks [][]byte
		var raw []byte
		for _, s := range c.chunks {
			chunks = append(chunks, []byte(s))
			raw = append(raw, s...)
		}
		got := outputOf(t, record(t, chunks...))
		if got != c.want || got != replaced(raw) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEveryASCIIByteRoundTrips(t *testing.T) {
	var all []byte
	for b := range utf8.RuneSelf {
		all = append(all, byte(b))
	}
	if got := outputOf(t, record(t, all)); got != string(all) {
		t.Fatalf("%q", got)
	}
}

// The encoder passes plain ASCII over 8 bytes at a time: every byte value,
// alone or after another special one, at every position of a word, is still
// seen and encoded.
func TestEveryByteAtEveryPositionOfAWord(t *testing.T) {
	for b := range 256 {
		for at := range 16 {
			for _, next := range []byte{'a', '"', 0x1b, 0xe2} {
				raw := []byte(strings.Repeat("p", 24))
				raw[at], raw[at+1] = byte(b), next
				got := string(appendString(nil, raw))
				var dec string
				if err := json.Unmarshal([]byte(got), &dec); err != nil || dec != replaced(raw) {
					t.Fatalf("byte %#x then %#x at %d: %s (%v), want %q", b, next, at, got, err, replaced(raw))
				}
			}
		}
	}
}

// FuzzWriter: whatever the output and however it is cut, the recording is
// valid JSON in valid UTF-8 and holds the output with invalid bytes
// replaced.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("abc\xe2\x9c\xb3def"), []byte{1, 4, 5})
	f.Add([]byte("\xf0\x9f\x8e\x89\xff\x1b[0m\"\\"), []byte{2, 2, 9})
	f.Fuzz(func(t *testing.T, raw, cuts []byte) {
		var chunks [][]byte
		rest := raw
		for _, c := range cuts {
			n := min(int(c)%8, len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		chunks = append(chunks, rest)
		if got, want := outputOf(t, record(t, chunks...)), replaced(raw); got != want {
			t.Fatalf("%q, want %q", got, want)
		}
	})
}
