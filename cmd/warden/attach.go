package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"

	"github.com/wardenhq/warden/internal/viewport"
	"github.com/wardenhq/warden/supervisor/control"
)

// detachKey is Ctrl-\ : it detaches a viewer and never reaches the agent.
const detachKey = 0x1c

// restoreTerm puts the viewer's terminal back after the agent's modes:
// styles reset, cursor shown, bracketed paste and mouse reports off, the
// main screen.
const restoreTerm = "\x1b[0m\x1b[?25h\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1049l"

// cmdAttach shows an agent's live terminal in the user's: its screen now,
// then its output; read-only unless --rw; Ctrl-\ detaches.
func cmdAttach(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("attach", "usage: warden attach [TEAM.toml | --state-dir DIR] AGENT [--rw]", stderr)
	rw := cmd.Bool("rw", false, "pass your keystrokes to the agent (warden's own typing waits while you type)")
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return cmd.badUsage()
	}
	agent := rest[0]
	st, err := control.NewClient(dir).Attach(agent, *rw)
	if err != nil {
		return clientError(err)
	}
	mode := "read-only: your keystrokes are not passed (attach --rw passes them)"
	if *rw {
		mode = "read-write: your keystrokes go to the agent"
	}
	fmt.Fprintf(stderr, "warden: attached to %s, %s. Ctrl-\\ detaches; the agent runs on.\r\n", agent, mode)
	view, stopResize := newView(stdout, viewport.Size{Cols: st.Cols, Rows: st.Rows})
	defer stopResize()
	if view.Clipped() {
		fmt.Fprintf(stderr, "warden: %s's terminal is %dx%d, yours is %s: you see the part of it around its cursor, cut at your edges (your size never changes the agent's)\r\n",
			agent, st.Cols, st.Rows, sizeText(terminalSize(stdout)))
	}
	fd := os.Stdin.Fd()
	raw := term.IsTerminal(fd)
	if raw {
		old, err := term.MakeRaw(fd)
		if err != nil {
			st.Detach()
			return fmt.Errorf("attach: raw mode: %w", err)
		}
		defer term.Restore(fd, old)
	}
	detach := make(chan struct{}, 1)
	go attachKeys(st, *rw, raw, detach)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-detach:
		case <-sigs:
		}
		st.Detach() // ends the frame loop below
	}()
	why, code := viewFrames(st, view)
	view.Close()
	fmt.Fprint(stdout, restoreTerm)
	if raw {
		fmt.Fprint(stdout, "\r\n")
	}
	if why == "" {
		why = "detached from " + agent + "; it runs on"
	}
	fmt.Fprintf(stderr, "warden: %s\r\n", why)
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// viewFrames shows warden's frames on the terminal, through view, until
// the stream ends; it returns warden's last word ("" when the viewer
// detached) and the exit code.
func viewFrames(st *control.Stream, view *viewport.View) (string, int) {
	var size viewport.Size // the agent's, said before each screen
	for {
		kind, p, err := st.Next()
		if err != nil {
			return "", 0 // detached (or warden went away without a word)
		}
		switch kind {
		case control.FrameOutput:
			if _, err := view.Write(p); err != nil {
				return "", 0
			}
		case control.FrameSize:
			if cols, rows, ok := control.ParseSize(p); ok {
				size = viewport.Size{Cols: cols, Rows: rows}
			}
		case control.FrameScreen:
			if len(p) > 0 {
				_ = view.Screen(size, p[1:], p[0] == 1)
			}
		case control.FrameNote:
			_ = view.Note(string(p))
		case control.FrameEnd:
			if string(p) == "warden is done" {
				return "warden is done: the team stopped", 0
			}
			return string(p), 1
		}
	}
}

// attachKeys passes the user's keystrokes (rw) until Ctrl-\ . Without a
// terminal the end of input is not a detach: a script may watch with
// stdin closed.
func attachKeys(st *control.Stream, rw, raw bool, detach chan<- struct{}) {
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		p := buf[:n]
		if i := bytes.IndexByte(p, detachKey); i >= 0 {
			if rw && i > 0 {
				st.Keys(append([]byte(nil), p[:i]...))
			}
			detach <- struct{}{}
			return
		}
		if rw && n > 0 {
			if st.Keys(append([]byte(nil), p...)) != nil {
				return
			}
		}
		if err != nil {
			if raw {
				detach <- struct{}{}
			}
			return
		}
	}
}
