//go:build !e2e

package memory

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// The line run and validate print names what is missing and what is then
// not enforced.
func TestBoxStatusSaysWhatIsNotEnforced(t *testing.T) {
	for _, c := range []struct {
		st        BoxStatus
		want, not string
	}{
		{BoxStatus{On: true, Cgroup: true, Scopes: true, ABI: 7, Walls: true}, "BOX: cgroup kill on, landlock scopes on (kernel Landlock ABI 7), walls on", "not enforced"},
		{BoxStatus{On: true, Cgroup: true, ABI: 4, ScopesWhy: "the kernel's Landlock ABI is 4", Walls: true},
			"BOX: cgroup kill on, landlock scopes off (kernel Landlock ABI 4), walls on: not enforced: an agent can signal warden", "outlive a stop"},
		{BoxStatus{On: true, Scopes: true, ABI: 7, CgroupWhy: "no cgroup v2 hierarchy is mounted", Walls: true},
			"BOX: cgroup kill off, landlock scopes on (kernel Landlock ABI 7), walls on: not enforced: a process an agent leaves behind", "signal warden"},
		{BoxStatus{On: true, Cgroup: true, Scopes: true, ABI: 7, WallsWhy: "no user namespaces"},
			"BOX: cgroup kill on, landlock scopes on (kernel Landlock ABI 7), walls off: not enforced: an agent can read the key warden seals its records with and the page's token (no user namespaces)", "signal warden"},
		{BoxStatus{}, `BOX: off (sandbox = "off"): not enforced: `, "landlock scopes on"},
	} {
		got := c.st.String()
		if !strings.HasPrefix(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%+v:\n%s\nwant it to begin %q and not say %q", c.st, got, c.want, c.not)
		}
	}
}

// A command started in its box leaves nothing once the box is closed: a
// process it put in a session of its own with its environment cleared, its
// parent gone, is killed with the box's cgroup.
func TestCommandBoxKillsWhatTheCommandLeft(t *testing.T) {
	cfg := config.Defaults()
	m := NewMemory(&cfg, clock.Real{}, hclog.NewNullLogger())
	defer m.Close()
	m.Start()
	if st := m.Box(); !st.Cgroup {
		t.Skip("no cgroup box on this machine: " + st.String())
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `( setsid sh -c 'exec env -i sleep 300' & echo $! > "$0" ) & wait`, pidFile)
	b := m.CommandBox("test")
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if pid <= 0 || !live(pid) {
		t.Fatalf("the escapee (%q) is not running: the test tests nothing", raw)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); live(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if live(pid) {
		t.Errorf("the escapee %d outlived its box", pid)
	}
}

// live reports whether pid is a running process (not a zombie).
func live(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
