package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/runner"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
)

// QuickExit is restart_quick: a process that ends this soon after it
// started did not get to work — typically a CLI that refused its
// configuration or its login and said why on its screen, and nowhere else.
// Its exit gets a WARNING line carrying what it showed last.
const QuickExit = 5 * time.Second

// TailLines is how many of an agent's last non-empty lines a WARNING or
// TASK FAILED line carries.
const TailLines = 3

// ended is how a session ended, for the lines that report it.
type ended struct {
	ran   time.Duration // from the start of the process to its end
	lines []string      // the last lines it showed (TailLines at most)
	// noStart is why its command could never start as it is ("could not
	// start: …", nostart.go); "" when it started, or may yet.
	noStart string
	// stalled is why warden stopped it as stalled, in words; "" if it did
	// not.
	stalled string
	// cliStop is the typed reason the CLI's last turn stopped on, in its
	// own word (Codex's app-server: session.CLIStop); "" for none.
	cliStop string
}

// withStop is reason with the CLI's own word for its last turn's stop, if
// it gave one: agent_failed's and agent_restarted's reason name it.
func (e ended) withStop(reason string) string {
	if e.cliStop == "" || reason == "" {
		return reason
	}
	return reason + " (the CLI's last turn stopped: " + e.cliStop + ")"
}

// endOf reads what the finished session s showed last and how long it ran,
// and, if its process never started, whether it never can (exit).
func (a *Agent) endOf(s *session.Session, exit runner.Exit) ended {
	e := ended{lines: s.LastLines(TailLines), cliStop: s.CLIStop()}
	if s.Pid() == 0 {
		e.noStart = cannotStart(exit.Err)
	}
	if start := s.StartedAt(); !start.IsZero() {
		e.ran = a.d.Clock.Now().Sub(start)
	}
	return e
}

// quick reports whether the session ended on its own within QuickExit of
// its start, short of a task-less agent that simply finished.
func (e ended) quick(exit runner.Exit, out session.Outcome, task bool) bool {
	return out == session.Exited && e.ran < QuickExit && (task || !exit.Success())
}

// said is the end of a progress line that carries the agent's last lines:
// "; its last lines: a | b | c", or "" when it showed nothing.
func (e ended) said() string {
	if e.noStart != "" {
		return "" // nothing ran that could show anything
	}
	if len(e.lines) == 0 {
		return "; it showed nothing"
	}
	return "; its last lines: " + strings.Join(e.lines, " | ")
}

// warnQuickExit prints that the agent's process ended right after it started,
// with what it showed, and what follows (then).
func (a *Agent) warnQuickExit(exit runner.Exit, e ended, then string) {
	a.d.Team.Printf(a.cfg.Name, "WARNING: %s ended (%s) %s after it started%s; %s\n", a.cfg.Name, exit, roundRan(e.ran), e.said(), then)
}

// roundRan rounds a run's length for a person: 40ms, 1.3s.
func roundRan(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// sayCrashed prints the one line of an exit after QuickExit that is followed
// by a restart, as supervisord and overmind print one per exit:
// "CRASHED: a (T1) exit code 1 after 2m13s; restart 1 of 3 in 4s" (EXITED for
// an exit with code 0 under restart = "always"). memory is why the kernel or
// memory_max ended it, or "".
func (a *Agent) sayCrashed(task *config.Task, exit runner.Exit, e ended, memory string, dec Decision) {
	word, on := "CRASHED", ""
	if exit.Success() {
		word = "EXITED"
	}
	if task != nil {
		on = " (" + task.ID + ")"
	}
	if memory != "" {
		memory = " (" + memory + ")"
	}
	a.d.Team.Printf(a.cfg.Name, "%s: %s%s %s after %s%s; restart %d of %d in %s\n",
		word, a.cfg.Name, on, exit, roundLong(e.ran), memory, dec.Count, dec.Burst, roundLong(dec.Delay))
}

// roundLong rounds a length for a person, to the second from a minute on:
// 1.3s, 2m13s.
func roundLong(d time.Duration) time.Duration {
	if d < time.Minute {
		return roundRan(d)
	}
	return d.Round(time.Second)
}

// restartReason is why a session that ended (out) is restarted, in the
// words of agent_restarted's reason (the notifications and the report say
// it): the exit ("exited with code 3", "killed by SIGKILL") or the stall.
func restartReason(out session.Outcome, exit runner.Exit, e ended) string {
	switch {
	case out == session.Stalled && e.stalled != "":
		return e.stalled
	case out == session.Stalled:
		return "stalled"
	case out != session.Exited:
		return ""
	case exit.Err != nil:
		return exit.String()
	case exit.Signal != 0:
		return "killed by " + unix.SignalName(exit.Signal)
	}
	return fmt.Sprintf("exited with code %d", exit.Code)
}

// stallReason is why agent_stalled's fields kv say the session stalled.
func stallReason(kv []any) string {
	f := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			f[k] = fmt.Sprint(kv[i+1])
		}
	}
	return event.StallReason(f["why"], f["silent_for"], f["no_checkpoint_for"], protocol.FirstLine(f["rejected"]))
}
