package supervisor

import (
	"os/exec"
	"testing"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// A record taken in a repository with no commit yet names its branch with
// no head: carrying on resumes from it (the branch is unborn, not gone).
// Before, every such task started afresh, its checkpoints thrown away, "its
// git branch "master" is gone".
func TestAnUnbornBranchIsNotAGoneOne(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "-b", "master", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	team := &Team{cfg: &config.Team{Agents: []config.Agent{{Name: "w1", Dir: dir}}}}
	cp := &protocol.Checkpoint{Agent: "w1", TaskID: "T1", Git: &protocol.Git{Branch: "master", Head: ""}}
	if why := team.unresumable(cp); why != "" {
		t.Errorf("unresumable: %s", why)
	}
	cp.Git = &protocol.Git{Branch: "feature", Head: "0123456789abcdef0123456789abcdef01234567"}
	if why := team.unresumable(cp); why == "" {
		t.Error("a branch with a head that no longer exists was taken as there")
	}
}
