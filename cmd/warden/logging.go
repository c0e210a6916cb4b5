package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/console"
)

// logFlags are the log flags of run and wrap.
type logFlags struct {
	level  string
	format string
	fs     *flag.FlagSet
}

// addLogFlags adds --log-level and --log-format to fs.
func addLogFlags(fs *flag.FlagSet) *logFlags {
	lf := &logFlags{fs: fs}
	fs.StringVar(&lf.level, "log-level", envOr("WARDEN_LOG_LEVEL", "info"), "log level: trace, debug, info, warn, error")
	fs.StringVar(&lf.format, "log-format", "text", "log format: text, or json (one JSON object a line)")
	return lf
}

// check refuses an unknown level or format.
func (lf *logFlags) check() error {
	if hclog.LevelFromString(lf.level) == hclog.NoLevel {
		return usageError("--log-level %q: want trace, debug, info, warn, error or off", lf.level)
	}
	if lf.format != "text" && lf.format != "json" {
		return usageError("--log-format %q: want text or json", lf.format)
	}
	return nil
}

// explicit reports whether the user chose the level (--log-level or
// WARDEN_LOG_LEVEL), which then holds on a terminal too.
func (lf *logFlags) explicit() bool {
	set := os.Getenv("WARDEN_LOG_LEVEL") != ""
	lf.fs.Visit(func(f *flag.Flag) {
		if f.Name == "log-level" {
			set = true
		}
	})
	return set
}

// options are hclog's options for output w at the chosen level and format.
func (lf *logFlags) options(w io.Writer, level hclog.Level) *hclog.LoggerOptions {
	return &hclog.LoggerOptions{Name: "warden", Level: level, Output: w, JSONFormat: lf.format == "json"}
}

// runLogger is `warden run`'s log: everything at the chosen level into
// logs/warden.log, and to stderr the same — except on a terminal, where
// stderr gets warnings and errors only unless the level was chosen, and
// never a warning that repeats a WARNING line just printed
// (console.Printed): the person would read it twice.
func (lf *logFlags) runLogger(file, stderr io.Writer, terminal bool) hclog.Logger {
	level := hclog.LevelFromString(lf.level)
	errLevel := level
	if terminal && !lf.explicit() {
		errLevel = max(level, hclog.Warn)
	}
	l := hclog.NewInterceptLogger(lf.options(file, level))
	sink := hclog.NewSinkAdapter(lf.options(stderr, errLevel))
	if terminal {
		sink = console.Unprinted(sink)
	}
	l.RegisterSink(sink)
	return l
}

// onTerminal reports whether out is a terminal a person watches: a tty,
// outside CI (CI set to anything but "", "false" or "0"). Piped, redirected
// or under CI, warden's output stays line by line, its log on stderr.
func onTerminal(out io.Writer) bool {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false
	}
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "false", "0":
		return true
	}
	return false
}

// newConsole is the console of a terminal stdout (internal/console).
func newConsole(out *os.File) *console.Console {
	return console.New(out, func() (int, int) {
		w, h, err := term.GetSize(out.Fd())
		if err != nil {
			return 0, 0
		}
		return w, h
	})
}

// logFailed reports, on stderr, that warden's own log file cannot be
// written (a full disk), and that it can again.
func logFailed(stderr io.Writer) func(error) {
	return func(err error) {
		if err != nil {
			fmt.Fprintf(stderr, "warden: logs/warden.log cannot be written (%v): warden's log lines are lost until it can\n", err)
			return
		}
		fmt.Fprintln(stderr, "warden: logs/warden.log is written again")
	}
}
