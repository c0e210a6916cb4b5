package holder

import (
	"fmt"

	"github.com/wardenhq/warden/runner"
)

// admit refuses a client of our own user that is one of the holder's
// agents or what they started: in an agent's session or process group, a
// descendant of the holder outside the holder's own session (an agent's
// tree, an escapee it reparented: agents start in sessions of their own,
// and no process joins a session from outside), or
// carrying a runner tag of the holder's (that only ever refuses: any
// process of the user can copy it). An agent that could adopt another's
// master, stop it or start a process outside its box would escape it; the
// socket serves warden alone. A peer /proc says nothing of is refused too.
func (h *Holder) admit(pid int) error {
	chain := runner.Ancestry(pid)
	if len(chain) == 0 {
		return fmt.Errorf("pid %d cannot be told apart from an agent's", pid)
	}
	h.rmu.Lock()
	_, inSid := h.sessions[chain[0].Sid]
	_, inPgid := h.sessions[chain[0].Pgid]
	h.rmu.Unlock()
	if inSid || inPgid {
		return fmt.Errorf("pid %d is in an agent's session", pid)
	}
	self, _ := runner.Stat(h.self)
	for _, p := range chain[1:] {
		if p.Pid == h.self && chain[0].Sid != self.Sid {
			return fmt.Errorf("pid %d descends from the holder", pid)
		}
	}
	if runner.CarriesTagOf(pid, h.self) {
		return fmt.Errorf("pid %d carries an agent's runner tag", pid)
	}
	return nil
}
