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
