//go:build linux

package signalfile

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// guard watches the directory the fsnotify watch is on and each of its
// ancestors for what happens to them themselves: moved, deleted, or their
// file system unmounted. Each of these can leave the fsnotify watch on a
// directory that is no longer at the file's path without fsnotify saying so
// (a moved ancestor makes no event on the watched directory; an unmount
// drops the watch with IN_UNMOUNT and IN_IGNORED, which fsnotify does not
// pass on). On one the watcher re-arms its watch, where it used to find out
// by polling. The mask holds self events only, so the guard does not wake us
// for files that come and go in those directories.
//
// The watched directory's own move or deletion is left to fsnotify, which
// reports it (a Remove or Rename of that name); for it the guard acts on an
// unmount only.
//
// Its own inotify instance is read through the netpoller by one goroutine,
// which hands each event to the run goroutine; wds is the run goroutine's.
type guard struct {
	f    *os.File
	fd   int
	wds  map[int32]string // guarded watch descriptor → its path
	self int32            // the wd of the watched directory itself
	c    chan guardEvent
	done chan struct{}
	wg   sync.WaitGroup
}

// guardEvent is one inotify event: its watch descriptor (overflowWD when
// events were lost) and mask.
type guardEvent struct {
	wd   int32
	mask uint32
}

// overflowWD stands for IN_Q_OVERFLOW: events were lost.
const overflowWD = -1

// guardMask: the directory itself moved or deleted; IN_IGNORED and
// IN_UNMOUNT come without asking. IN_DONT_FOLLOW guards a symbolic link on
// the path itself, so that its retargeting (unlink or rename over it) shows.
const guardMask = unix.IN_MOVE_SELF | unix.IN_DELETE_SELF | unix.IN_DONT_FOLLOW

func newGuard() (*guard, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	g := &guard{f: os.NewFile(uintptr(fd), "inotify-guard"), fd: fd, wds: map[int32]string{},
		c: make(chan guardEvent, 16), done: make(chan struct{})}
	g.wg.Add(1)
	go g.read()
	return g, nil
}

// read passes on every event until the instance is closed.
func (g *guard) read() {
	defer g.wg.Done()
	buf := make([]byte, 4096)
	for {
		n, err := g.f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			off += unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(buf[off+12:]))
			if mask&unix.IN_Q_OVERFLOW != 0 {
				wd = overflowWD
			}
			select {
			case g.c <- guardEvent{wd: wd, mask: mask}:
			case <-g.done:
				return
			}
		}
	}
}

// set guards exactly dirs, dropping the guards of any others; dirs[0] is
// the watched directory.
func (g *guard) set(dirs []string) error {
	keep := make(map[int32]string, len(dirs))
	for _, d := range dirs {
		wd, err := g.add(d)
		if err != nil {
			return err
		}
		keep[wd] = d
	}
	for wd := range g.wds {
		if _, ok := keep[wd]; !ok {
			_, _ = unix.InotifyRmWatch(g.fd, uint32(wd))
		}
	}
	g.wds = keep
	g.self = -2
	if len(dirs) > 0 {
		for wd, d := range keep {
			if d == dirs[0] {
				g.self = wd
			}
		}
	}
	return nil
}

// add guards dir and checks that dir is still what was guarded once the
// guard is in place, so that a move before that is not missed either.
func (g *guard) add(dir string) (int32, error) {
	before, err := os.Lstat(dir)
	if err != nil {
		return 0, err
	}
	wd, err := unix.InotifyAddWatch(g.fd, dir, guardMask)
	if err != nil {
		return 0, fmt.Errorf("guard %s: %w", dir, err)
	}
	after, err := os.Lstat(dir)
	if err != nil || !os.SameFile(before, after) {
		if _, ours := g.wds[int32(wd)]; !ours {
			_, _ = unix.InotifyRmWatch(g.fd, uint32(wd))
		}
		return 0, errMoved
	}
	return int32(wd), nil
}

// moved reports whether ev means the watch may no longer be at the file's
// path: events were lost, an ancestor moved, went or was unmounted, or the
// watched directory was unmounted.
func (g *guard) moved(ev guardEvent) bool {
	switch _, ok := g.wds[ev.wd]; {
	case ev.wd == overflowWD:
		return true
	case !ok:
		return false // a guard dropped on purpose
	case ev.wd == g.self:
		return ev.mask&unix.IN_UNMOUNT != 0
	}
	return true
}

// events delivers every event.
func (g *guard) events() <-chan guardEvent { return g.c }

// close stops the reader and closes the instance.
func (g *guard) close() {
	close(g.done)
	_ = g.f.Close()
	g.wg.Wait()
}
