// Package fakeagent turns a Go test binary into a fake agent: a test re-runs its
// own binary with WARDEN_FAKE_AGENT set, and Main (called first thing in
// TestMain) runs the requested mode instead of the tests and exits.
//
// # Mode syntax
//
// A mode string is a name followed by parameters, separated by ':'
// ("lines:100", "grandchild:ignore:idle"). The mode function receives the
// parameters, followed by any extra arguments given to Command. A parameter
// that is a count of bytes or lines is a plain decimal number; durations use
// Go syntax ("50ms").
//
// # Built-in modes
//
//	exit:N                 print "exiting with code N" and exit with code N
//	lines:N                print "line 1" … "line N", exit 0
//	partial:TEXT           print TEXT with no final newline, exit 0 (TEXT may contain ':')
//	longline:N             print one line of N bytes (pattern from LongLine) plus "\n", exit 0
//	flood:N                write N MiB of 64-byte lines as fast as possible, exit 0
//	idle                   turn tty echo off, print "ready", then echo every line read from
//	                       stdin back to stdout; exit 0 at end of input; no timers
//	ignore                 ignore SIGTERM, SIGINT and SIGHUP, print "ready", sleep forever
//	winsize                print "size ROWS COLS" at start and after every SIGWINCH; idle otherwise
//	grandchild:MODE:THEN   start the binary again in MODE (same process group), print
//	                       "grandchild PID", then THEN: "exit" (exit 0) or "idle"
//	escape:MODE:THEN       like grandchild, but the grandchild calls setsid first (it leaves
//	                       the group and the session but keeps the terminal open)
//	crash:DELAY:CODE       print "running", sleep DELAY, print "crashing", exit CODE (default 2)
//	refuse:CODE:TEXT       a CLI refusing its configuration: print "fake-cli 1.0", then
//	                       "Error: TEXT" (in red) on stderr, exit CODE at once (refuse.go)
//
// Other packages add modes with Register from their own files (in an init
// function), without touching this package's built-in set.
package fakeagent
