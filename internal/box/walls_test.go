//go:build e2e && linux

package box

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Behind the walls a process sees a hidden directory empty and a hidden
// file empty, cannot unmount either, and still makes a user and mount
// namespace of its own (as bubblewrap does) in which it cannot unmount
// them either; what is not hidden it reads and writes as before; the
// cgroup tree is read-only (it cannot leave its group). Its environment
// has nothing of the walls'.
func TestWallsHideAndHold(t *testing.T) {
	if ok, why := WallsAvailable(); !ok {
		t.Fatalf("no walls here: %s", why)
	}
	dir := t.TempDir()
	secretDir, token, open := filepath.Join(dir, "keys"), filepath.Join(dir, "page-token"), filepath.Join(dir, "work")
	os.MkdirAll(secretDir, 0o700)
	os.MkdirAll(open, 0o700)
	os.WriteFile(filepath.Join(secretDir, "records.key"), []byte("KEY"), 0o600)
	os.WriteFile(token, []byte("TOKEN"), 0o600)
	script := `cat ` + secretDir + `/records.key; echo "key:$?"; cat ` + token + `; echo "token:$?"
umount ` + secretDir + ` 2>/dev/null; echo "umount:$?"; cat ` + secretDir + `/records.key 2>/dev/null; echo "after:$?"
echo w > ` + open + `/f && cat ` + open + `/f
unshare -Urm sh -c 'umount ` + secretDir + ` 2>/dev/null; echo "nested umount:$?"; mount -t tmpfs none /mnt && echo nested-mount-ok'
for f in $(find /sys/fs/cgroup -maxdepth 2 -name cgroup.procs | head -3); do echo $$ > $f 2>&1 && echo "moved:$f"; done
env | grep -c WARDEN_BOX; id -u`
	cmd := exec.Command("sh", "-c", script)
	if err := Walls(cmd, WallSpec{Hide: []string{secretDir, token, filepath.Join(dir, "absent")}}); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("behind the walls: %v", err)
	}
	want := []string{"key:1", "token:0", "umount:", "after:1", "w\n", "nested-mount-ok", "\n0\n"}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(string(out), "KEY") || strings.Contains(string(out), "TOKEN") {
		t.Error("a hidden secret was read")
	}
	if strings.Contains(string(out), "moved:") {
		t.Error("a process behind the walls moved itself to another cgroup")
	}
	if strings.Contains(string(out), "umount:0") || strings.Contains(string(out), "nested umount:0") {
		t.Error("a wall was taken down")
	}
}
