package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"

	"github.com/wardenhq/warden/internal/viewport"
)

// terminalSize is the size of the terminal w is, or zero when w is none.
func terminalSize(w io.Writer) viewport.Size {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return viewport.Size{}
	}
	cols, rows, err := term.GetSize(f.Fd())
	if err != nil || cols <= 0 || rows <= 0 {
		return viewport.Size{}
	}
	return viewport.Size{Cols: cols, Rows: rows}
}

func sizeText(s viewport.Size) string { return fmt.Sprintf("%dx%d", s.Cols, s.Rows) }

// newView shows a program's terminal of size prog (zero: not known yet,
// taken as the viewer's until it is) on stdout, as attach and replay do:
// on a terminal of another size, the part of it that fits, drawn again
// when the terminal is resized (SIGWINCH); elsewhere, the output as it
// was written. stop ends the watch of the terminal's size.
func newView(stdout io.Writer, prog viewport.Size) (view *viewport.View, stop func()) {
	viewer := terminalSize(stdout)
	if prog.Cols <= 0 || prog.Rows <= 0 {
		prog = viewer
	}
	view = viewport.New(stdout, prog, viewer)
	if viewer == (viewport.Size{}) {
		return view, func() {}
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-winch:
				if s := terminalSize(stdout); s != (viewport.Size{}) {
					_ = view.Resize(s)
				}
			case <-done:
				return
			}
		}
	}()
	return view, func() {
		signal.Stop(winch)
		close(done)
	}
}
