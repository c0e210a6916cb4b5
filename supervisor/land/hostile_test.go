//go:build !e2e

package land

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// A repository whose configuration names a merge driver, filters and
// hooks, and task branches whose .gitattributes pick them: a land runs
// none of them (the agents wrote the attributes; a hook or a driver is a
// command).
func TestLandRunsNoDriverOrHook(t *testing.T) {
	n := newNight(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "evil.sh")
	write(t, script, "#!/bin/sh\necho \"ran: $0 $*\" >> '"+marker+"'\nexec cat\n")
	os.Chmod(script, 0o755)
	for _, kv := range [][2]string{
		{"merge.evil.driver", script + " %O %A %B"}, {"filter.evil.clean", script}, {"filter.evil.smudge", script},
		{"diff.evil.textconv", script},
	} {
		gitT(t, n.root, "config", kv[0], kv[1])
	}
	for _, hook := range []string{"pre-merge-commit", "post-merge", "post-checkout", "commit-msg", "prepare-commit-msg", "reference-transaction"} {
		write(t, filepath.Join(n.root, ".git", "hooks", hook), "#!/bin/sh\necho \"hook: $0\" >> '"+marker+"'\n")
		os.Chmod(filepath.Join(n.root, ".git", "hooks", hook), 0o755)
	}
	attrs := "* merge=evil filter=evil diff=evil\n"
	// Both edit a.txt, on lines apart: a three-way file merge, where a
	// configured driver would run.
	n.task(t, "T1", "main", map[string]string{".gitattributes": attrs, "a.txt": "ONE\ntwo\nthree\nfour\nfive\n"})
	n.task(t, "T2", "main", map[string]string{".gitattributes": attrs, "a.txt": "one\ntwo\nthree\nfour\nFIVE\n", "two.txt": "2\n"})
	os.Remove(marker) // the test's own git calls ran the hooks
	res, _ := n.land(t, config.Landing{Land: config.LandBranch})
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a land ran what the repository names:\n%s", b)
	}
	// A merge driver turned off is a merge that fails: it never runs.
	if res.Stop == nil || res.Stop.Task != "T2" || landedTasks(res) != "T1" {
		t.Errorf("land: %+v", res)
	}
	n.assertClean(t)
}
