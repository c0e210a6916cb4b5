package fakeagent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// hostile: an agent that, as it starts, tries what issue 33 measured a
// hostile agent doing from inside its session, writes what each try did to
// out, then idles (as "idle") until it is stopped:
//
//	hostile:out=FILE:escape=FILE:probe=PID:kill=FILE:abstract=NAME:pidfile=FILE
//
//	pidfile=FILE   write its own pid to FILE (for another agent to aim at)
//	escape=FILE    leave a process behind the way the issue did —
//	               ( setsid sh -c '( exec env -i sleep … ) &' & ): its own
//	               session, parent gone, environment cleared (no runner tag,
//	               no test owner) — and write its pid to FILE
//	probe=PID      kill(PID, 0): whether it may signal PID (warden: the
//	               test process, which a real signal would end)
//	kill=FILE      wait up to 10 s for FILE (another agent's pidfile), then
//	               SIGKILL that pid
//	abstract=NAME  connect to the abstract unix socket @NAME
//	read=P1,P2     read each file (warden's record key, the page's token)
//
// Each try is one line of out: "probe PID: allowed", "kill PID: operation
// not permitted", "abstract NAME: allowed", "read P: N bytes", "escape PID", in that
// order,
// then "done".
func init() { Register("hostile", modeHostile) }

func modeHostile(args []string) int {
	opt := map[string]string{}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		opt[k] = v
	}
	var lines []string
	if f := opt["pidfile"]; f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			return fail("pidfile: %v", err)
		}
	}
	if p := opt["probe"]; p != "" {
		pid, _ := strconv.Atoi(p)
		lines = append(lines, fmt.Sprintf("probe %d: %s", pid, verdict(syscall.Kill(pid, 0))))
	}
	if f := opt["kill"]; f != "" {
		pid := waitPid(f, 10*time.Second)
		lines = append(lines, fmt.Sprintf("kill %d: %s", pid, verdict(syscall.Kill(pid, syscall.SIGKILL))))
	}
	if name := opt["abstract"]; name != "" {
		lines = append(lines, fmt.Sprintf("abstract %s: %s", name, verdict(connectAbstract(name))))
	}
	if paths := opt["read"]; paths != "" {
		for _, p := range strings.Split(paths, ",") {
			b, err := os.ReadFile(p)
			if err != nil {
				lines = append(lines, fmt.Sprintf("read %s: %v", p, err))
				continue
			}
			lines = append(lines, fmt.Sprintf("read %s: %d bytes", p, len(b)))
		}
	}
	if f := opt["escape"]; f != "" {
		pid, err := leaveBehind(f)
		if err != nil {
			return fail("escape: %v", err)
		}
		lines = append(lines, fmt.Sprintf("escape %d", pid))
	}
	if out := opt["out"]; out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(append(lines, "done"), "\n")+"\n"), 0o600); err != nil {
			return fail("out: %v", err)
		}
	}
	return modeIdle(nil)
}

// verdict is "allowed" or the error's text.
func verdict(err error) string {
	if err == nil {
		return "allowed"
	}
	return err.Error()
}

// waitPid reads a pid from file, waiting for it to be written.
func waitPid(file string, wait time.Duration) int {
	for deadline := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			return -1
		}
	}
}

// connectAbstract connects to @name.
func connectAbstract(name string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + name})
}

// leaveBehind starts the escapee through sh and returns its pid once
// file names it.
func leaveBehind(file string) (int, error) {
	// The escapee writes its own pid once it is in its session (after
	// setsid): a pid written by its parent at the fork could name a process
	// still in the agent's session, where a stop finds it (a loaded machine).
	script := `( setsid sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec env -i sleep 600' "$1" & ) &`
	if err := exec.Command("sh", "-c", script, "sh", file).Run(); err != nil {
		return 0, err
	}
	if pid := waitPid(file, 5*time.Second); pid > 0 {
		return pid, nil
	}
	return 0, errors.New("the escapee never wrote its pid")
}
