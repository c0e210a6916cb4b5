package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

const upgradeUsage = "usage: warden upgrade [TEAM.toml | --state-dir DIR] [--binary PATH] [--wait D]"

// cmdUpgrade replaces the running warden's binary with a new one in the
// same process (same pid), the agents working on under the team's holder
// and taken back by the new binary: none restarted. It waits until the
// new warden took them back and says what happened.
func cmdUpgrade(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("upgrade", upgradeUsage, stderr)
	binary := cmd.String("binary", "", "the new warden binary (default: the file now at the path the running warden was started from)")
	wait := cmd.Duration("wait", 2*time.Minute, "how long to wait for the upgrade and the take-back")
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 || *wait <= 0 {
		return cmd.badUsage()
	}
	if *binary != "" {
		if *binary, err = filepath.Abs(*binary); err != nil {
			return usageError("--binary: %v", err)
		}
	}
	c := control.NewClient(dir)
	before, err := c.PS()
	if err != nil {
		return clientError(err)
	}
	deadline := time.Now().Add(*wait)
	up, err := c.Upgrade(*binary, *wait)
	if err != nil {
		return clientError(err)
	}
	fmt.Fprintf(stdout, "upgrading: warden pid %d execs %s (%s), letting go of %s\n", up.Pid, up.Binary, up.To, count(len(up.Agents), "agent"))
	taken, restarted, err := awaitTakeBack(c, up, len(before.CarriedOn), deadline)
	ended := ""
	if err != nil {
		if taken, ended = endedAfterUpgrade(dir, up, len(before.CarriedOn)); ended == "" {
			return clientError(err)
		}
	}
	fmt.Fprintf(stdout, "upgraded: %s → %s (pid %d), %s taken back, %d restarted%s\n", up.From, up.To, up.Pid,
		count(len(taken), "agent"), len(restarted), ended)
	if len(restarted) > 0 {
		return clientError(fmt.Errorf("not taken back, their sessions start again from their checkpoints: %v", restarted))
	}
	return nil
}

// awaitTakeBack waits until the new warden (the same pid) answers on the
// control socket with the upgrade in its carried_on (after known entries),
// and every agent it took back runs its old process again. The agents up
// let go of that it did not take back are restarted.
func awaitTakeBack(c *control.Client, up *control.Upgrade, known int, deadline time.Time) (taken, restarted []string, err error) {
	for ; ; time.Sleep(20 * time.Millisecond) {
		if exited(up.Pid) {
			return nil, nil, fmt.Errorf("warden (pid %d) exited after the exec: logs/warden.log says why; its agents work on "+
				"under the holder until `warden run` takes them back (within orphan_timeout)", up.Pid)
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("the new warden (pid %d) did not take the agents back in time: see `warden ps` and logs/warden.log", up.Pid)
		}
		ps, err := c.PS()
		if err != nil || ps.Pid != up.Pid || len(ps.CarriedOn) <= known {
			continue // the new binary is starting
		}
		last := ps.CarriedOn[len(ps.CarriedOn)-1]
		if last.Upgraded == nil {
			return nil, nil, fmt.Errorf("warden (pid %d) carried the run on, but not as an upgrade: %s", up.Pid, last.After)
		}
		taken, restarted = nil, nil
		all := true
		for name, pid := range up.Agents {
			if !slices.Contains(last.TakenBack, name) {
				restarted = append(restarted, name)
				continue
			}
			taken = append(taken, name)
			for _, a := range ps.Agents {
				if a.Name == name && (a.Pid != pid || a.SessionStarted.IsZero()) {
					all = false // not attached yet (or it ended meanwhile)
				}
			}
		}
		if all {
			slices.Sort(restarted)
			return taken, restarted, nil
		}
	}
}

// endedAfterUpgrade reads state.json of a warden that exited after the
// exec: when the new binary carried the run on as the upgrade and the run
// then ended (its tasks complete, or stopped) — a run that finished while
// its upgrade was awaited — it gives the agents taken back and how the run
// ended; else "" (the new binary failed).
func endedAfterUpgrade(dir string, up *control.Upgrade, known int) (taken []string, ended string) {
	snap, err := state.ReadSnapshot(dir)
	if err != nil || snap.Running || snap.Ended == "" || len(snap.CarriedOn) <= known {
		return nil, ""
	}
	last := snap.CarriedOn[len(snap.CarriedOn)-1]
	if last.Upgraded == nil {
		return nil, ""
	}
	return last.TakenBack, "; the run has ended since (" + snap.Ended + ")"
}

// upgradeEnv is what `warden run` gives the binary an upgrade execs
// beyond its own environment: what it took out of it at start.
func upgradeEnv(o runOptions) []string {
	if o.httpToken == "" {
		return nil
	}
	return []string{tokenEnv + "=" + o.httpToken}
}

// exited reports whether process pid is gone, or a zombie.
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}
