package control

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// Frames of an attach stream: a kind byte, a 4-byte big-endian length, the
// payload.
const (
	FrameOutput = 'o' // server → client: the agent's output, as it wrote it
	FrameSize   = 'z' // server → client: the agent's terminal size, before each screen: columns and rows, 2 bytes each, big-endian
	FrameScreen = 's' // server → client: redraw the screen: 1 byte alt-screen flag, then the drawing
	FrameNote   = 'n' // server → client: a line for the person
	FrameEnd    = 'e' // server → client: the stream ended, and why
	FrameKeys   = 'i' // client → server: keystrokes (attach --rw)
	FrameDetach = 'q' // client → server: the viewer leaves
)

// maxFrame bounds one frame's payload.
const maxFrame = 4 << 20

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, kind byte, p []byte) error {
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(p)
	return err
}

// ReadFrame reads one frame.
func ReadFrame(r *bufio.Reader) (kind byte, p []byte, err error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes: too large", n)
	}
	p = make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	return h[0], p, nil
}

// SizePayload is a FrameSize's payload.
func SizePayload(cols, rows int) []byte {
	var p [4]byte
	binary.BigEndian.PutUint16(p[:2], uint16(min(max(cols, 0), 0xffff)))
	binary.BigEndian.PutUint16(p[2:], uint16(min(max(rows, 0), 0xffff)))
	return p[:]
}

// ParseSize reads a FrameSize's payload.
func ParseSize(p []byte) (cols, rows int, ok bool) {
	if len(p) != 4 {
		return 0, 0, false
	}
	cols, rows = int(binary.BigEndian.Uint16(p[:2])), int(binary.BigEndian.Uint16(p[2:]))
	return cols, rows, cols > 0 && rows > 0
}
