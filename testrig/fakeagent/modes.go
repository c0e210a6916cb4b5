package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	Register("exit", modeExit)
	Register("lines", modeLines)
	Register("partial", modePartial)
	Register("longline", modeLongLine)
	Register("flood", modeFlood)
	Register("idle", modeIdle)
	Register("ignore", modeIgnore)
	Register("winsize", modeWinsize)
	Register("grandchild", func(args []string) int { return modeSpawn(args, false) })
	Register("escape", func(args []string) int { return modeSpawn(args, true) })
	Register("crash", modeCrash)
	Register("crashseq", modeCrashSeq)
}

// LongLine returns the n bytes "longline:n" prints before its newline:
// the decimal digits repeated.
func LongLine(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0' + byte(i%10)
	}
	return b
}

// FloodLine is the 64-byte line (63 characters and '\n') "flood" repeats.
var FloodLine = []byte("flood flood flood flood flood flood flood flood flood flood f..\n")

func intArg(args []string, i, def int) int {
	if i >= len(args) || args[i] == "" {
		return def
	}
	n, err := strconv.Atoi(args[i])
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: bad number %q\n", args[i])
		os.Exit(98)
	}
	return n
}

func write(b []byte) {
	if _, err := os.Stdout.Write(b); err != nil {
		os.Exit(99)
	}
}

func modeExit(args []string) int {
	code := intArg(args, 0, 0)
	fmt.Printf("exiting with code %d\n", code)
	return code
}

func modeLines(args []string) int {
	w := bufio.NewWriterSize(os.Stdout, 32<<10)
	for i := 1; i <= intArg(args, 0, 10); i++ {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if err := w.Flush(); err != nil {
		return 99
	}
	return 0
}

func modePartial(args []string) int {
	write([]byte(strings.Join(args, ":")))
	return 0
}

func modeLongLine(args []string) int {
	write(append(LongLine(intArg(args, 0, 1<<20)), '\n'))
	return 0
}

func modeFlood(args []string) int {
	chunk := make([]byte, 0, 64<<10)
	for len(chunk) < cap(chunk) {
		chunk = append(chunk, FloodLine...)
	}
	total := intArg(args, 0, 1) << 20
	for total > 0 {
		n := min(total, len(chunk))
		write(chunk[:n])
		total -= n
	}
	return 0
}

func modeIdle(args []string) int {
	echoOff()
	write([]byte("ready\n"))
	signalReady()
	buf := make([]byte, 64<<10)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			write(buf[:n])
		}
		if err != nil {
			return 0
		}
	}
}

func modeIgnore(args []string) int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	write([]byte("ready\n"))
	signalReady()
	for {
		time.Sleep(time.Hour)
	}
}

func modeWinsize(args []string) int {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	for {
		ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakeagent: TIOCGWINSZ: %v\n", err)
			return 1
		}
		fmt.Printf("size %d %d\n", ws.Row, ws.Col)
		<-winch
	}
}

// modeSpawn starts the binary again in args[0] (default "idle"), optionally in
// a new session, then exits or idles per args[1] (default "exit").
func modeSpawn(args []string, setsid bool) int {
	mode, then := "idle", "exit"
	if len(args) > 0 && args[0] != "" {
		mode = args[0]
	}
	if len(args) > 1 && args[1] != "" {
		then = args[1]
	}
	pid, err := spawn(mode, setsid)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: spawn: %v\n", err)
		return 1
	}
	fmt.Printf("grandchild %d\n", pid)
	if then == "idle" {
		return modeIdle(nil)
	}
	return 0
}

func spawn(mode string, setsid bool) (int, error) {
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvMode+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, EnvMode+"="+mode)
	env = append(env, envReadyFD+"=3")
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("ready pipe: %w", err)
	}
	defer r.Close()
	attr := &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, w},
		Sys:   &syscall.SysProcAttr{Setsid: setsid},
	}
	p, err := os.StartProcess(self(), []string{self(), "-test.run=^$"}, attr)
	_ = w.Close()
	if err != nil {
		return 0, fmt.Errorf("start %s grandchild: %w", mode, err)
	}
	pid := p.Pid
	_ = p.Release() // its new parent (us or the subreaper) reaps it
	// Wait until the grandchild has set up (e.g. ignores SIGHUP) so that
	// our exit cannot kill it half-started. EOF means it did not get there.
	var b [1]byte
	_, _ = r.Read(b[:])
	return pid, nil
}

// envReadyFD names the descriptor a spawned grandchild writes one byte to
// once it is set up.
const envReadyFD = "WARDEN_FAKE_READY_FD"

// signalReady tells the spawning fake agent, if any, that this mode is set up.
func signalReady() {
	fd, err := strconv.Atoi(os.Getenv(envReadyFD))
	if err != nil {
		return
	}
	_ = os.Unsetenv(envReadyFD)
	f := os.NewFile(uintptr(fd), "ready")
	_, _ = f.Write([]byte{1})
	_ = f.Close()
}

func modeCrash(args []string) int {
	delay := 50 * time.Millisecond
	if len(args) > 0 && args[0] != "" {
		d, err := time.ParseDuration(args[0])
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakeagent: bad duration %q\n", args[0])
			return 98
		}
		delay = d
	}
	write([]byte("running\n"))
	time.Sleep(delay)
	write([]byte("crashing\n"))
	return intArg(args, 1, 2)
}

// modeCrashSeq ("crashseq:DIR[:CODE]") crashes with CODE (default 3) at
// once, run after run; the run numbered N (counted in DIR/runs) waits first
// if DIR/hold-N exists, until DIR/release-N appears. A restart-policy test
// lets one run last as long as it likes this way.
func modeCrashSeq(args []string) int {
	if len(args) == 0 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "fakeagent: crashseq needs a directory")
		return 98
	}
	dir := args[0]
	b, _ := os.ReadFile(dir + "/runs")
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	if err := os.WriteFile(dir+"/runs", []byte(strconv.Itoa(n)), 0o600); err != nil {
		return 97
	}
	write([]byte(fmt.Sprintf("run %d\n", n)))
	if _, err := os.Stat(fmt.Sprintf("%s/hold-%d", dir, n)); err == nil {
		for {
			if _, err := os.Stat(fmt.Sprintf("%s/release-%d", dir, n)); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	write([]byte("crashing\n"))
	return intArg(args, 1, 3)
}
