package tokenfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// tail reads a file that only grows, a line at a time, from where it
// stopped the last time: each call reads only the bytes appended since.
// A file whose identity (device and inode) changed, or that is now shorter
// than what was read, was replaced or truncated: it is read again from its
// start, and the caller is told to forget what it had from it.
type tail struct {
	path    string
	dev     uint64
	ino     uint64
	off     int64  // bytes consumed, whole lines only
	partial []byte // the start of a line not yet ended
	read    int64  // every byte read, over the tail's life
	buf     []byte
}

// maxLine caps a line kept while its end has not come (a line longer than
// this is skipped: no usage line of any CLI comes near it).
const maxLine = 64 << 20

// maxRead bounds what one call reads of a file: a file that grew by more
// (a session's first read of a long transcript, or a path a hook named
// that is no CLI's) is read on over the next calls, never for long at once.
const maxRead = 64 << 20

// next reads what was appended and calls line for each whole line (the
// slice is valid during the call only). restarted is true when the file
// was replaced or truncated and is being read from its start; line is
// called after that is reported through restart. A missing file is no
// error: nothing was appended.
func (t *tail) next(restart func(), line func([]byte)) error {
	st, err := os.Stat(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("usage: stat %s: %w", t.path, err)
	}
	dev, ino := fileID(st)
	if (t.off > 0 || len(t.partial) > 0) && (dev != t.dev || ino != t.ino || st.Size() < t.off+int64(len(t.partial))) {
		t.off, t.partial = 0, nil
		restart()
	}
	t.dev, t.ino = dev, ino
	start := t.off + int64(len(t.partial))
	if st.Size() == start || !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(t.path)
	if err != nil {
		return fmt.Errorf("usage: open %s: %w", t.path, err)
	}
	defer f.Close()
	if t.buf == nil {
		t.buf = make([]byte, 256<<10)
	}
	pos, end := start, min(st.Size(), start+maxRead)
	for pos < end {
		n, err := f.ReadAt(t.buf[:min(int64(len(t.buf)), end-pos)], pos)
		t.read += int64(n)
		pos += int64(n)
		t.feed(t.buf[:n], line)
		if err == io.EOF || n == 0 {
			break
		}
		if err != nil {
			return fmt.Errorf("usage: read %s: %w", t.path, err)
		}
	}
	return nil
}

// feed splits p into lines, the first continuing a partial one.
func (t *tail) feed(p []byte, line func([]byte)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(t.partial)+len(p) <= maxLine {
				t.partial = append(t.partial, p...)
			} else {
				t.off += int64(len(t.partial) + len(p))
				t.partial = t.partial[:0]
			}
			return
		}
		whole := p[:i]
		if len(t.partial) > 0 {
			t.partial = append(t.partial, whole...)
			whole = t.partial
		}
		t.off += int64(len(whole)) + 1
		line(whole)
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
}

func fileID(st os.FileInfo) (dev, ino uint64) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), s.Ino
	}
	return 0, 0
}
