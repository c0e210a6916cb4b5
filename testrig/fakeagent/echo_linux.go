package fakeagent

import "golang.org/x/sys/unix"

// echoOff turns off the terminal's own echo so that only what the mode
// writes appears on the master side.
func echoOff() {
	t, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return // stdin is not a terminal
	}
	t.Lflag &^= unix.ECHO
	_ = unix.IoctlSetTermios(0, unix.TCSETS, t)
}
