package session

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/asciicast"
	"github.com/wardenhq/warden/runner"
)

// The session's recording: every byte of the agent's output and every
// resize of its pty, as an asciicast v2 file (Config.CastPath, the state
// dir's logs/{agent}-{session}.cast) that asciinema and `warden replay`
// play. It is opened before the process starts, so that its first output is
// in it, and closed when the session ends, after the last output. It is
// capped at the agent's log_max_size: past it, a closing note is recorded
// and nothing more (the terminal log keeps the rest). A recording that
// cannot be written only costs a line in warden's log: the agent's output
// never waits for it.

// startRecording opens the session's recording, if it has one.
func (s *Session) startRecording() {
	c := s.cfg
	if c.CastPath == nil {
		return
	}
	size := c.Size
	if size.Rows == 0 || size.Cols == 0 {
		size = runner.Size{Rows: runner.DefaultRows, Cols: runner.DefaultCols}
	}
	maxSize := c.LogMaxSize
	if maxSize <= 0 {
		maxSize = runner.DefaultLogMaxSize
	}
	path := c.CastPath(s.id)
	if c.SessionID != "" { // taken back from the holder: the earlier warden's recording is closed
		path = c.CastPath(s.id + "taken" + strconv.FormatInt(c.Clock.Now().Unix(), 10))
	}
	rec, err := asciicast.Create(s.log.Named("cast"), path, asciicast.Options{
		Cols: int(size.Cols), Rows: int(size.Rows), Term: termOf(s.prof.Env(c.Env)), Title: s.castTitle(),
		MaxSize: maxSize,
		StopNote: fmt.Sprintf("\r\n\x1b[0m[warden: the recording stops here: it reached log_max_size (%d bytes);"+
			" the rest of the session is in %s]\r\n", maxSize, filepath.Base(c.LogPath)),
	})
	if err != nil {
		s.log.Warn("the session is not recorded", "error", err)
		return
	}
	s.rec = rec
}

// recordOutput tees a chunk of the agent's output into the recording.
func (s *Session) recordOutput(p []byte) {
	if s.rec != nil {
		s.rec.Write(p)
	}
}

// recordResize notes that the pty is now size.
func (s *Session) recordResize(size runner.Size) {
	if s.rec != nil {
		s.rec.Resize(int(size.Cols), int(size.Rows))
	}
}

// stopRecording closes the recording once the last output is in.
func (s *Session) stopRecording() {
	if s.rec == nil {
		return
	}
	if err := s.rec.Close(); err != nil {
		s.log.Warn("the recording is incomplete", "error", err)
	}
}

// castTitle names the session in players.
func (s *Session) castTitle() string {
	if s.cfg.Task == nil {
		return fmt.Sprintf("warden: %s, session %s", s.cfg.Agent, s.id)
	}
	return fmt.Sprintf("warden: %s on %s, attempt %d, session %s", s.cfg.Agent, s.cfg.Task.ID, s.cfg.Attempt, s.id)
}

// termOf is the TERM the agent sees: the last one its extra environment
// sets, or the runner's default. No other value of the environment is ever
// recorded.
func termOf(env []string) string {
	term := "xterm-256color"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TERM="); ok {
			term = v
		}
	}
	return term
}
