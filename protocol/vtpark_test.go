//go:build !e2e

package protocol

import (
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A screen that parks the grid not in use reads exactly what one keeping
// both grids reads: the rows, the rows scrolled off, the alternate-screen
// flag and the rendering, after every write of every real CLI's recording
// and of programs that switch screens with text on the main one, resize
// on either screen and reset the terminal — cut at random: in writes of up
// to 4096 bytes through the whole of each stream, and of up to 17 bytes
// (escape sequences cut anywhere) through its first 48 KiB, which holds
// each CLI's start, its screen switches and its first frames (the whole
// 3.9 MB in 17-byte writes took 14 minutes under -race).
func TestParkedScreenReadsTheSame(t *testing.T) {
	files, err := filepath.Glob("testdata/cli-*/*.raw")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	streams := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		streams[f] = string(b)
	}
	text := strings.Repeat("shell line\r\n", 60)
	streams["main text, alt, back"] = "before\r\n" + text + "\x1b[?1049h\x1b[Hon alt\x1b[5;3Hmore\x1b[?1049lafter\r\n" + text
	streams["blank main, alt, back"] = "\x1b[?1049h\x1b[2J\x1b[Halt frame\r\n\x1b[?1049l\x1b[Hmain again\r\n" + text
	streams["1047 and 47, twice"] = "a\r\n\x1b[?1047hb\x1b[?1047lc\r\n\x1b[?47hd\x1b[?47l\x1b[?1049he\x1b[?1049l\x1b[?1049hf"
	streams["reset on alt"] = "x\r\n\x1b[?1049hy\x1bcz\r\n" + text
	for name, stream := range streams {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // CPU alone: two streams at once on two cores
			parkedReadsTheSame(t, name, stream)
		})
	}
}

// parkedReadsTheSame writes stream, cut at random (its own generator, from
// its name), to a screen that parks and to one that keeps both grids, and
// compares them.
func parkedReadsTheSame(t *testing.T, name, stream string) {
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(5, h.Sum64()))
	for _, max := range []int{17, 4096} {
		stream := stream
		if max < 4096 && len(stream) > smallWritesPrefix {
			stream = stream[:smallWritesPrefix]
		}
		parked := newVTScreen(testLogger(t), 200, 50, nil, true)
		kept := newVTScreen(testLogger(t), 200, 50, nil, false)
		if parked.park == nil {
			t.Fatal("nothing parked: x/vt's fields are not as expected")
		}
		for i, k := 0, 0; i < len(stream); k++ {
			n := 1 + rng.IntN(max)
			chunk := []byte(stream[i:min(i+n, len(stream))])
			i += n
			write(t, kept, chunk, "both kept", name, i)
			write(t, parked, chunk, "parked", name, i)
			if k%97 == 50 { // now and then, a resize
				cols, rows := 80+rng.IntN(150), 20+rng.IntN(40)
				parked.Resize(cols, rows)
				kept.Resize(cols, rows)
			}
			if ps, ks := scrolled(parked), scrolled(kept); !slices.Equal(ps, ks) {
				t.Fatalf("%s in writes of up to %d, after byte %d: scrolled off %v, both kept %v", name, max, i, ps, ks)
			}
			if k%compareEvery[max] != 0 && i < len(stream) {
				continue
			}
			pr, kr := parked.Rows(), kept.Rows()
			if !slices.Equal(pr, kr) || parked.AltScreen() != kept.AltScreen() || parked.Render() != kept.Render() {
				t.Fatalf("%s in writes of up to %d, after byte %d: parked reads\n%v\nalt %v\nboth kept\n%v\nalt %v",
					name, max, i, pr, parked.AltScreen(), kr, kept.AltScreen())
			}
		}
		parked.Close()
		kept.Close()
	}
}

// smallWritesPrefix is how much of each stream is written in small pieces.
const smallWritesPrefix = 48 << 10

// compareEvery is how many writes of each size pass between two reads of
// the whole screen (rows and rendering; what scrolled off is compared after
// every write).
var compareEvery = map[int]int{17: 64, 4096: 16}

func write(t *testing.T, s *vtScreen, chunk []byte, which, name string, at int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s, %s, at byte %d: %v", which, name, at, r)
		}
	}()
	_, _ = s.Write(chunk)
}

func scrolled(s *vtScreen) []Row {
	rows, _ := s.ScrolledOff()
	return rows
}

// A screen holds one grid, not two, whichever screen its program draws on:
// 20 screens after a real Claude Code session (the alternate screen), 20
// after a Codex one (the main screen), and 20 after 300 long lines scrolled
// by in one write and read (x/vt's scrollback, emptied, still held every
// line it ever took until overwritten).
func TestAScreenHoldsOneGrid(t *testing.T) {
	const n = 20
	grid := uint64(200 * 50 * 112) // x/vt's cells: 112 bytes
	scroll := []byte(strings.Repeat(strings.Repeat("x", 150)+"\r\n", 300) + "\x1b[2J\x1b[Hdone")
	for _, f := range []string{"testdata/cli-claude/checkpoint-200x50.raw", "testdata/cli-codex/checkpoint-200x50.raw", ""} {
		raw := scroll
		if f != "" {
			var err error
			if raw, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		before := liveHeap()
		screens := make([]Screen, n)
		for i := range screens {
			screens[i] = NewScreen(testLogger(t), 200, 50, nil)
			_, _ = screens[i].Write(raw)
			_, _ = screens[i].ScrolledOff()
		}
		per := (liveHeap() - before) / n
		for _, s := range screens {
			s.Close()
		}
		if f == "" {
			f = "300 lines scrolled by"
		}
		if per > grid*112/100 {
			t.Errorf("%s: %d KiB per screen, over one grid (%d KiB) and 12 %%", f, per>>10, grid>>10)
		}
		t.Logf("%s: %d KiB per screen (one grid: %d KiB)", f, per>>10, grid>>10)
	}
}
