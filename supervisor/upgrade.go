package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// UpgradedFromEnv carries, from a warden that replaces itself (`warden
// upgrade`) to the binary it execs, the version it was: the new warden
// carries the run on as an upgrade (run_started how "upgraded").
const UpgradedFromEnv = "WARDEN_UPGRADED_FROM"

// ErrUpgradeNeedsHolder refuses `warden upgrade` of a team without a
// holder: its agents are warden's children, their ptys warden's alone.
var ErrUpgradeNeedsHolder = errors.New("upgrade needs holder = true")

const (
	// versionWait bounds `NEW --version`, the check that the new binary runs.
	versionWait = 10 * time.Second
	// steadyWait bounds the wait for no agent starting or stopping and no
	// verify running: a moment every live session can be taken back.
	steadyWait = 10 * time.Second
	// pauseWait bounds the pause of the readers and the sessions' sync.
	pauseWait = 5 * time.Second
)

// upgradeState is what `warden upgrade` needs (SetUpgrade) and whether one
// runs.
type upgradeState struct {
	mu      sync.Mutex
	busy    bool
	version string   // `warden --version` of this binary
	env     []string // added to the new binary's environment
	from    string   // this process was upgraded from that version ("": not)
}

// SetUpgrade tells the team this binary's version line, what to add to
// the environment of a binary it upgrades to (the page's token, taken out
// of the environment at start), and the version it was upgraded from
// ($WARDEN_UPGRADED_FROM, "": started afresh). Call it before Begin.
func (t *Team) SetUpgrade(version string, env []string, from string) {
	t.upgrade.mu.Lock()
	defer t.upgrade.mu.Unlock()
	t.upgrade.version, t.upgrade.env, t.upgrade.from = version, env, from
}

// upgradedFrom is the version this process was upgraded from, or "".
func (t *Team) upgradedFrom() (from, to string) {
	t.upgrade.mu.Lock()
	defer t.upgrade.mu.Unlock()
	return t.upgrade.from, t.upgrade.version
}

// Upgrade checks that the team can be upgraded to bin (its path; "": the
// file now at the path this process was started from): the team runs
// under a holder, is not stopping, and bin runs (`bin --version`). It
// returns what is about to happen and the function that does it (Exec);
// nothing has changed yet.
func (t *Team) Upgrade(bin string) (*control.Upgrade, func() error, error) {
	t.upgrade.mu.Lock()
	version := t.upgrade.version
	t.upgrade.mu.Unlock()
	if !t.cfg.Holder || t.hold == nil {
		return nil, nil, fmt.Errorf("%w: this team's agents are warden's children and end with it; set holder = true "+
			"in the team file (the next `warden run` starts them under a holder) to upgrade warden under them", ErrUpgradeNeedsHolder)
	}
	if t.finished.Load() {
		return nil, nil, errors.New("the run is over: nothing to upgrade")
	}
	if g := t.currentGen(); g != nil && g.IsStopping() {
		return nil, nil, errors.New("the team is stopping: nothing to upgrade")
	}
	bin, to, err := checkBinary(bin, t.cfg.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: nothing changed, %s runs on", err, version)
	}
	if err := t.waitSteady(); err != nil {
		return nil, nil, fmt.Errorf("%w: nothing changed, try again", err)
	}
	up := &control.Upgrade{From: version, To: to, Binary: bin, Pid: os.Getpid(), Agents: map[string]int{}}
	for _, a := range t.agents {
		st := a.Status()
		if s := a.Session(); s != nil && (st.State == state.Running || st.State == state.Waiting) {
			up.Agents[a.Name()] = s.Pid()
		}
	}
	return up, func() error { return t.execUpgrade(up) }, nil
}

// checkBinary resolves bin and runs `bin --version`: the new binary must
// run, and say it is warden; then `bin validate TEAM.toml` (teamFile, when
// known): the new binary reads the team file again as it starts, and one
// it refuses would leave the agents to the holder.
func checkBinary(bin, teamFile string) (path, version string, err error) {
	if bin == "" {
		if bin, err = os.Executable(); err != nil { // " (deleted)" trimmed: the new file at that path
			return "", "", fmt.Errorf("warden's own path: %w", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return "", "", fmt.Errorf("new binary: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), versionWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil {
		return "", "", fmt.Errorf("the new binary %s does not run (`%s --version`: %w)", bin, bin, err)
	}
	if !strings.HasPrefix(line, "warden ") {
		return "", "", fmt.Errorf("the new binary %s is not warden (`--version` says %q)", bin, line)
	}
	if teamFile != "" {
		out, err := exec.CommandContext(ctx, bin, "validate", teamFile).CombinedOutput()
		if err != nil {
			return "", "", fmt.Errorf("the new binary %s refuses the team file (`validate %s`: %w): %s", bin, teamFile, err,
				strings.TrimSpace(string(out)))
		}
	}
	return bin, line, nil
}

// waitSteady waits until no agent is starting or stopping and no task is
// verified (a verify is warden's child, its verdict warden's to read): then
// every live session is running or waiting, and taken back after the exec.
func (t *Team) waitSteady() error {
	deadline := time.Now().Add(steadyWait)
	for {
		why := ""
		for _, a := range t.agents {
			if st := a.Status().State; st == state.Starting || st == state.Stopping {
				why = fmt.Sprintf("agent %s is %s", a.Name(), st)
			}
		}
		for _, ts := range t.queue.Snapshot() {
			if ts.State == queue.Verifying {
				why = fmt.Sprintf("task %s is being verified", ts.ID)
			}
		}
		if why == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s (waited %s)", why, steadyWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var _ control.Upgrader = controlTeam{}

// Upgrade is `warden upgrade` over the control socket (Team.Upgrade).
func (c controlTeam) Upgrade(bin string) (*control.Upgrade, func() error, error) {
	return c.t.Upgrade(bin)
}

// upgradeCarry is what carryOn says of a run carried on by the binary an
// upgrade exec'd: the reason, and the record in state.json's carried_on.
func (t *Team) upgradeCarry(carry *state.CarryOn, taken []takenBack) (how string, ok bool) {
	from, to := t.upgradedFrom()
	if from == "" {
		return "", false
	}
	carry.Upgraded = &state.Upgraded{From: from, To: to}
	carry.TakenBack = takenNames(taken)
	return "upgraded from " + from, true
}
