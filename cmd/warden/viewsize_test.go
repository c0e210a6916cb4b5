//go:build e2e

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/asciicast"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
)

func init() { fakeagent.Register("widescreen", modeWideScreen) }

// wideRow is row r of a 200-column screen: its number, then letters, each
// telling its column (a to z over again).
func wideRow(r int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "R%02d", r)
	for x := 3; x < 200; x++ {
		b.WriteByte('a' + byte(x%26))
	}
	return b.String()
}

// wideScreen draws 50 wide rows at their places, then puts the cursor at
// (x, y), 0-based.
func wideScreen(x, y int) string {
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	for r := range 50 {
		fmt.Fprintf(&b, "\x1b[%d;1H%s", r+1, wideRow(r))
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH", y+1, x+1)
	return b.String()
}

// wantPart is what a viewer of size cols×rows shows of the wide screen
// when its top-left cell is (x, y).
func wantPart(x, y, cols, rows int) string {
	var out []string
	for r := y; r < y+rows; r++ {
		out = append(out, wideRow(r)[x:x+cols])
	}
	return strings.Join(out, "\n")
}

// modeWideScreen waits for the file draw in args[0], draws the wide screen
// with its cursor at (3, 5), waits for the file pan, moves its cursor to
// (150, 45), and sleeps.
func modeWideScreen(args []string) int {
	waitFile := func(name string) {
		for {
			if _, err := os.Stat(filepath.Join(args[0], name)); err == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFile("draw")
	os.Stdout.WriteString(wideScreen(3, 5))
	waitFile("pan")
	os.Stdout.WriteString("\x1b[46;151H")
	for {
		time.Sleep(time.Hour)
	}
}

// seenOn is what a terminal of cols×rows shows after out, read through
// warden's terminal emulator: its rows as text.
func seenOn(out string, cols, rows int) string {
	scr := protocol.NewScreen(hclog.NewNullLogger(), cols, rows, nil)
	defer scr.Close()
	scr.Write([]byte(out))
	var lines []string
	for _, r := range scr.Rows() {
		lines = append(lines, r.Text)
	}
	return strings.Join(lines, "\n")
}

// waitSeen waits until the terminal shows want.
func (p *ptyTerm) waitSeen(t *testing.T, what, want string, cols, rows int) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = seenOn(p.output(), cols, rows); got == want {
			return
		}
	}
	t.Fatalf("%s: the %dx%d terminal shows\n%s\nwant\n%s", what, cols, rows, got, want)
}

// warden attach in an 80×24 terminal, of an agent whose terminal is
// 200×50: the viewer sees the agent's top-left 80×24, every row cut at
// column 80 (it saw the 200-column rows wrapped over its rows), then the
// part around the agent's cursor when the cursor moves to (150, 45). The
// agent's terminal stays 200×50.
func TestAttachInASmallTerminal(t *testing.T) {
	defer proctest.AssertNone(t)
	flags := t.TempDir()
	team := opsTeam(t, "", opsAgent{name: "w", mode: "widescreen:" + flags})
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_started", "w", 1)

	v := startOnPty(t, warden("attach", team, "w"), 80, 24, nil)
	v.waitFor(t, "you see the part of it around its cursor")
	os.WriteFile(filepath.Join(flags, "draw"), nil, 0o600)
	v.waitSeen(t, "the agent's cursor at (3, 5)", wantPart(0, 0, 80, 24), 80, 24)
	os.WriteFile(filepath.Join(flags, "pan"), nil, 0o600)
	v.waitSeen(t, "the agent's cursor at (150, 45)", wantPart(71, 22, 80, 24), 80, 24)

	casts, _ := filepath.Glob(filepath.Join(stateOf(team), "logs", "w-*.cast"))
	if len(casts) != 1 {
		t.Fatalf("recordings of w: %v", casts)
	}
	f, err := os.Open(casts[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := asciicast.NewReader(f)
	if err != nil || rec.Header.Width != 200 || rec.Header.Height != 50 {
		t.Fatalf("the agent's recording: %v, %+v", err, rec)
	}
	for ev, err := rec.Next(); err == nil; ev, err = rec.Next() {
		if ev.Code == asciicast.Resize {
			t.Errorf("the agent's terminal was resized to %s while a viewer watched", ev.Data)
		}
	}
	v.f.Write([]byte{detachKey})
	if code := v.wait(t, 10*time.Second); code != 0 || !strings.Contains(v.output(), "detached from w; it runs on") {
		t.Errorf("attach after Ctrl-\\: exit %d\n%q", code, v.output())
	}
}

// warden replay of a 200×50 recording in an 80×24 terminal: the top-left
// part while the recorded cursor is there, the part around it once it
// moved to (150, 45); no row wrapped, no query answered.
func TestReplayInASmallTerminal(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	writeCast(t, dir, "w", "s1", 200, 50,
		0.0, wideScreen(3, 5)+"\x1b[c",
		1.5, "\x1b[46;151H")
	p := startOnPty(t, warden("replay", "--state-dir", dir, "w"), 80, 24, tmuxAnswers)
	p.waitFor(t, "your terminal is 80x24, the recording's 200x50: you see the part of it around its cursor")
	p.waitSeen(t, "the recorded cursor at (3, 5)", wantPart(0, 0, 80, 24), 80, 24)
	if code := p.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("replay: exit %d\n%q", code, p.output())
	}
	out := p.output()
	if i := strings.LastIndex(out, resetModes); i >= 0 {
		out = out[:i] // the reset's line end scrolls the screen by one
	}
	if got, want := seenOn(out, 80, 24), wantPart(71, 22, 80, 24); got != want {
		t.Errorf("at the end the terminal shows\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(out, "\x1b[c") {
		t.Errorf("the recorded query reached the terminal")
	}
}
