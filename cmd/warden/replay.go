package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/wardenhq/warden/internal/asciicast"
	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/internal/viewport"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/state"
)

const replayUsage = "usage: warden replay [TEAM.toml | --state-dir DIR] AGENT [--session ID] [--speed N] [--list]"

// cmdReplay plays a session's asciicast recording (logs/{agent}-{session}.cast)
// in the terminal, or lists an agent's recorded sessions.
func cmdReplay(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("replay", replayUsage, stderr)
	session := cmd.String("session", "", "the session to play: its id or a unique prefix (default: the newest)")
	speed := cmd.Float64("speed", 1, "play N times as fast (every pause is first capped at 2 s)")
	list := cmd.Bool("list", false, "list the agent's recorded sessions, oldest first")
	pos, err := cmd.args(args)
	if err != nil {
		return err
	}
	var dir, agent string
	switch stateDir := *cmd.stateDir; {
	case stateDir != "" && len(pos) == 1:
		dir, agent = stateDir, pos[0]
	case stateDir == "" && len(pos) == 2:
		team, err := loadTeam(pos[0])
		if err != nil {
			return err
		}
		dir, agent = team.StateDir, pos[1]
	case stateDir == "" && len(pos) == 1:
		if dir, _, err = findTeam(); err != nil {
			return err
		}
		agent = pos[0]
	default:
		return cmd.badUsage()
	}
	if *speed <= 0 {
		return usageError("--speed must be more than 0, not %v", *speed)
	}
	layout := state.NewLayout(dir)
	if *list {
		return listCasts(stdout, layout, agent)
	}
	c, err := layout.FindCast(agent, *session)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	return playCast(c, *speed, stdout, stderr)
}

// listCasts prints an agent's recorded sessions, oldest first.
func listCasts(stdout io.Writer, layout state.Layout, agent string) error {
	casts, err := layout.AgentCasts(agent)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if len(casts) == 0 {
		return &exitError{code: 1, err: fmt.Errorf("no recording of agent %q in %s", agent, layout.Logs())}
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SESSION\tSTARTED\tLENGTH\tSIZE\tBYTES\tTITLE")
	for _, c := range casts {
		length, size := "?", "?"
		if d, err := asciicast.Length(c.Path); err == nil {
			length = d.Round(time.Second).String()
			if d < time.Minute {
				length = d.Round(100 * time.Millisecond).String()
			}
		}
		if c.HeaderErr == nil {
			size = fmt.Sprintf("%dx%d", c.Header.Width, c.Header.Height)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", c.Session, c.Started().Local().Format("2006-01-02 15:04:05"),
			length, size, c.Size, protocol.Plain(c.Header.Title))
	}
	return w.Flush()
}

// playCast replays c to stdout. In a terminal, the keyboard is read raw
// (space pauses, Ctrl-C or q stops: the agent's own queries get no answer
// typed into the shell afterwards), a terminal of another size than the
// recording's shows the part of it around its cursor (internal/viewport),
// and the terminal's modes are reset at the end. Ctrl-C exits 130.
func playCast(c state.Cast, speed float64, stdout, stderr io.Writer) error {
	f, err := safefile.Open(c.Path, os.O_RDONLY) // no link, no FIFO swapped in since the listing
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	defer f.Close()
	r, err := asciicast.NewReader(f)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("%s: %w", c.Path, err)}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := asciicast.PlayOptions{Speed: speed}
	to := stdout // a file or a pipe gets the bytes as recorded
	if size := terminalSize(stdout); size != (viewport.Size{}) {
		fmt.Fprintf(stderr, "warden: replaying %s session %s (%dx%d, %s) at %gx: space pauses, Ctrl-C stops\r\n",
			c.Agent, c.Session, r.Header.Width, r.Header.Height, c.Started().Local().Format("2006-01-02 15:04"), speed)
		view, stopResize := newView(stdout, viewport.Size{Cols: r.Header.Width, Rows: r.Header.Height})
		defer stopResize()
		if view.Clipped() {
			fmt.Fprintf(stderr, "warden: your terminal is %s, the recording's %dx%d: you see the part of it around its cursor, cut at your edges\r\n",
				sizeText(size), r.Header.Width, r.Header.Height)
		}
		var restore func()
		if opts.Pause, restore = readKeys(ctx, cancel); restore != nil {
			defer restore()
		}
		defer io.WriteString(stdout, resetModes)
		defer view.Close()
		to = view
		opts.Resize = func(cols, rows int) { _ = view.Program(viewport.Size{Cols: cols, Rows: rows}) }
	}
	err = asciicast.Play(ctx, r, to, opts)
	switch {
	case errors.Is(err, context.Canceled):
		return &exitError{code: 130}
	case err != nil:
		return &exitError{code: 1, err: err}
	}
	return nil
}

// resetModes undoes what a replayed TUI may have left on: the alternate
// screen, a hidden cursor, colours, mouse reporting, bracketed paste, focus
// events.
const resetModes = "\x1b[0m\x1b[?25h\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1004l\r\n"

// readKeys puts stdin, when it is a terminal, in raw mode and reads it:
// Ctrl-C or q cancels, space pauses or resumes; the terminal's answers to
// the replayed program's queries, and every other escape sequence, are no
// keys (keyFilter). It returns the pause channel for Play and how to
// restore the terminal (nil, nil when stdin is no terminal).
func readKeys(ctx context.Context, cancel func()) (pause chan struct{}, restore func()) {
	fd := os.Stdin.Fd()
	if !term.IsTerminal(fd) {
		return nil, nil
	}
	st, err := term.MakeRaw(fd)
	if err != nil {
		return nil, nil
	}
	p := make(chan struct{})
	go func() {
		buf := make([]byte, 256)
		var typed keyFilter
		for {
			n, err := os.Stdin.Read(buf)
			for _, b := range typed.keys(buf[:n], time.Now()) {
				switch b {
				case 3, 'q':
					cancel()
					return
				case ' ':
					select { // taken at the next pause between events
					case p <- struct{}{}:
					case <-ctx.Done():
						return
					}
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return p, func() { _ = term.Restore(fd, st) }
}
