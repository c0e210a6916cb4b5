package runner

import "bytes"

// maxKeptPartial is the partial-line buffer capacity kept between lines; a
// bigger one (after a very long line) is dropped so it does not pin memory.
const maxKeptPartial = 64 << 10

// Lines (a test helper) is an io.Writer that calls fn once per line. It splits on '\n',
// strips one trailing '\r', has no length limit (a 1 MiB line is one call),
// and keeps a partial last line until more input completes it or Flush.
// fn must not retain the slice. Lines is not safe for concurrent use; as
// Config.Output it is only called from the reader goroutine, and the runner
// calls Flush after the last chunk.
type Lines struct {
	fn      func(line []byte)
	partial []byte
}

// NewLines returns a Lines that calls fn for every line.
func NewLines(fn func(line []byte)) *Lines { return &Lines{fn: fn} }

// Write splits b into lines; it never fails.
func (l *Lines) Write(b []byte) (int, error) {
	n := len(b)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.partial = append(l.partial, b...)
			return n, nil
		}
		line := b[:i]
		if len(l.partial) > 0 {
			l.partial = append(l.partial, line...)
			line = l.partial
		}
		l.emit(line)
		b = b[i+1:]
	}
}

// Flush hands the partial last line, if any, to fn.
func (l *Lines) Flush() {
	if len(l.partial) > 0 {
		l.emit(l.partial)
	}
}

func (l *Lines) emit(line []byte) {
	if k := len(line); k > 0 && line[k-1] == '\r' {
		line = line[:k-1]
	}
	l.fn(line)
	if cap(l.partial) > maxKeptPartial {
		l.partial = nil
	} else {
		l.partial = l.partial[:0]
	}
}
