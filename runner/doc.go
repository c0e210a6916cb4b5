// Package runner runs one process under a pseudo-terminal (Linux first): it
// starts it with an explicit window size, reads every byte it writes from the
// first instant until end of output, appends the output to a log file (rotated
// by size, and kept going through a full disk: see logfile.go), types into it,
// resizes it, signals its whole process group, and reports its exit status.
//
// Exit statuses come from one process-wide reaper goroutine (SIGCHLD +
// wait4(pid, WNOHANG) per registered pid), never from a blocking cmd.Wait per
// process, and the terminal master is non-blocking, so an idle agent costs a
// parked goroutine, not an OS thread. The reaper makes this process a child
// subreaper, so orphaned descendants of an agent are re-parented to us; it
// reaps those it can attribute to an agent (see escape_linux.go for what can
// and cannot be found).
//
// Every process gets RunnerTagEnv=<tag> in its environment; descendants inherit
// it, which is how escapees that re-parented to us are told apart from other
// children of this process.
package runner
