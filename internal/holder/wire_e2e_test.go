//go:build e2e

package holder

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/testrig/proctest"
)

// socketPair is a connected pair of unix stream sockets.
func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// A descriptor sent beside a line longer than a socket takes at once
// arrives with it, and works; the lines around it are unharmed.
func TestLineConnPassesADescriptorBesideALongLine(t *testing.T) {
	a, b := socketPair(t)
	send, recv := newLineConn(a, 0, 10*time.Second), newLineConn(b, 8<<20, 0)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd, err := dupFD(r)
	if err != nil {
		t.Fatal(err)
	}
	output := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, 1.4 MB in base64
	sent := make(chan error, 1)
	go func() {
		err := send.writeJSON(Message{Kind: KindHello}, -1)
		if err == nil {
			err = send.writeJSON(Message{Kind: KindAdopted, Output: output, FD: true}, fd)
		}
		if err == nil {
			err = send.writeJSON(Message{Kind: KindReply}, -1)
		}
		unix.Close(fd)
		sent <- err
	}()
	var kinds []string
	var got Message
	for range 3 {
		line, err := recv.readLine()
		if err != nil {
			t.Fatalf("readLine: %v", err)
		}
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, m.Kind)
		if m.Kind == KindAdopted {
			got = m
		}
	}
	if err := <-sent; err != nil {
		t.Fatalf("write: %v", err)
	}
	if want := []string{KindHello, KindAdopted, KindReply}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if !bytes.Equal(got.Output, output) || !got.FD {
		t.Fatalf("adopted message: %d bytes of output, fd %v", len(got.Output), got.FD)
	}
	rfd, ok := recv.takeFD()
	if !ok {
		t.Fatal("no descriptor came")
	}
	if _, ok := recv.takeFD(); ok {
		t.Fatal("two descriptors came")
	}
	f := os.NewFile(uintptr(rfd), "received pipe")
	defer f.Close()
	w.Write([]byte("through"))
	buf := make([]byte, 16)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "through" {
		t.Fatalf("read the received pipe: %q, %v", buf[:n], err)
	}
}

// A line longer than the reader's bound ends the reading.
func TestLineConnRefusesALineTooLong(t *testing.T) {
	a, b := socketPair(t)
	send, recv := newLineConn(a, 0, 10*time.Second), newLineConn(b, 1<<10, 0)
	go send.writeJSON(Message{Kind: KindAdopted, Output: make([]byte, 64<<10)}, -1)
	if _, err := recv.readLine(); !errors.Is(err, errLineTooLong) {
		t.Fatalf("readLine = %v, want errLineTooLong", err)
	}
}

// A client that sends what does not parse, or descriptors, is dropped or
// has them closed; the holder serves the next one.
func TestHolderDropsAClientThatSpeaksNonsense(t *testing.T) {
	defer proctest.AssertNone(t)
	s := serve(t, nil)
	defer s.end(t)
	raw, err := net.Dial("unix", s.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	fd, _ := dupFD(w)
	if _, _, err := raw.(*net.UnixConn).WriteMsgUnix([]byte(`{"op":"list","seq":1}`+"\n"), unix.UnixRights(fd), nil); err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	w.Close()
	raw.Write([]byte("not json\n"))
	_ = raw.SetReadDeadline(time.Now().Add(20 * time.Second))
	var all []byte
	buf := make([]byte, 4096)
	for {
		n, err := raw.Read(buf)
		all = append(all, buf[:n]...)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the holder kept a client that sent nonsense; it sent %q", all)
			}
			break
		}
	}
	if !bytes.Contains(all, []byte(`"kind":"hello"`)) || !bytes.Contains(all, []byte(`"kind":"reply","seq":1`)) {
		t.Errorf("the holder sent %q; want its hello and the list's reply", all)
	}
	// The descriptor sent to the holder was closed: the pipe's last writer
	// is gone, so its reader sees the end.
	_ = r.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := r.Read(buf); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("pipe read %d bytes, %v; want its end: the holder kept the descriptor", n, err)
	}
	c := dial(t, s)
	if _, err := c.List(ctx(t)); err != nil {
		t.Errorf("List after the nonsense: %v", err)
	}
}
