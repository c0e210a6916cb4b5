//go:build e2e

package protocol

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/fakeagent"
)

func init() { fakeagent.Register("seeds", modeSeeds) }

// seeds: a TUI (alternate screen, no tty echo, a composer box, words placed
// with cursor moves in colour, each answer line drawn half first, ten
// repaints) that answers each CHECKPOINT REQUEST with longSeed hard-wrapped
// at 80 columns, and then repaints its screen five more times, a pause
// apart; it leaves on "quit".
func modeSeeds([]string) int {
	if old, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil {
		quiet := *old
		quiet.Lflag &^= unix.ECHO
		_ = unix.IoctlSetTermios(0, unix.TCSETS, &quiet)
		defer func() { _ = unix.IoctlSetTermios(0, unix.TCSETS, old) }()
	}
	s := newTUIStream(80, 50)
	s.say("ready")
	out := func() { _, _ = os.Stdout.WriteString(s.take()) }
	out()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		if i := strings.Index(line, RequestPrefix); i >= 0 { // after any terminal reply read as input
			line = line[i:]
		}
		if strings.HasSuffix(strings.TrimSpace(line), "quit") { // after any terminal reply too
			_, _ = os.Stdout.WriteString("\x1b[?1049l")
			return 0
		}
		task, ok := RequestTask(line)
		if !ok {
			continue
		}
		s.transcript = append(s.transcript, wrap80("> "+line)...)
		lines, _ := longSeed(task)
		s.answer(lines)
		out()
		for range 5 {
			time.Sleep(150 * time.Millisecond)
			s.frame("")
			out()
		}
	}
	return 0
}

// A real agent under a real pty, 80 columns wide, answers with the seed
// block hard-wrapped and repainted: one record with every field.
func TestPtySeedBlockIsOneRecord(t *testing.T) {
	s := startAgent(t, "seeds", ModeScreen)
	_, want := longSeed("T7")
	s.typeLine(Request("T7"))
	s.waitBlocks(1)
	time.Sleep(time.Second) // the five repaints, each read at its pause
	rows := s.r.Rows()
	s.finish()
	s.c.expect(t, 1, 0, 0)
	if b := s.c.blocks[0]; b.Amends {
		t.Errorf("the record is an amendment: %+v", b)
	}
	if !reflect.DeepEqual(s.c.blocks[0].Extra, want.Extra) {
		t.Errorf("screen:\n%s", strings.Join(rows, "\n"))
	}
	sameContent(t, s.c.blocks[0], want)
}
