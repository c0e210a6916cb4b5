package box

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The walls are the part of the box that hides warden's secrets — the key
// records are sealed with, the page's token — from everything an agent
// runs, without a Landlock filesystem rule (which would stop every mount,
// and with them the CLIs' own sandboxes: doc.go). The process starts in a
// user and a mount namespace of its own; before the agent's program runs,
// a copy of the running binary (Walls, below) mounts an empty read-only
// tmpfs over each hidden directory and /dev/null over each hidden file,
// then execs the program with no capability left. Without
// CAP_SYS_ADMIN the agent cannot unmount them; a namespace it makes for
// itself (bubblewrap's) gets them locked by the kernel, which refuses to
// unmount what a more privileged namespace mounted. Its user id inside is
// its own (warden's root is mapped to nobody, 65534, so that it has no
// capability and a CLI's sandbox can still map itself in a namespace of
// its own). The cgroup tree is read-only behind the walls too: an agent
// cannot move itself out of the group its box's cgroup.kill ends.
//
// The state dir is read-only behind them (WallSpec.ReadOnly, readOnly in
// readonly_linux.go): bound on itself, remounted read-only with the flags
// the kernel locked kept, after its holes (WallSpec.Writable: the hook
// spool, hook.log, the agent's settings dir, and always the work dir) were
// bound on themselves as they are. A remount or unmount needs
// CAP_SYS_ADMIN here, which the agent does not keep, and a namespace it
// makes gets the read-only flag locked. The copy enters the work dir again
// once the walls stand: the one exec.Cmd entered is on the mount beneath.

// wallsEnv carries the walls' spec (WallSpec, as JSON) into the copy of
// the binary that builds them; it is never passed on to the agent.
const wallsEnv = "WARDEN_BOX_WALLS"

// wallsProgEnv is the agent's program, as warden found it on its PATH.
const wallsProgEnv = "WARDEN_BOX_WALLS_PROG"

func init() {
	if paths, ok := os.LookupEnv(wallsEnv); ok {
		os.Exit(buildWallsAndExec(paths))
	}
}

// Walls makes cmd (prepared, not started; its Path and Args the agent's
// program, its Dir set) start behind walls built to spec: cmd then runs a
// copy of this binary, in a user and mount namespace of their own, which
// builds the walls and execs the program. Call WallsAvailable first.
func Walls(cmd *exec.Cmd, spec WallSpec) error {
	// The running binary, even when its file was replaced or removed since
	// (an upgrade): the kernel's link to what this process runs.
	const self = "/proc/self/exe"
	list, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("walls: %w", err)
	}
	prog := cmd.Path // resolved as exec.Command did; its argv stays as it was
	cmd.Path = self
	if len(cmd.Args) == 0 {
		cmd.Args = []string{prog}
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(withoutWallsEnv(env), wallsEnv+"="+string(list), wallsProgEnv+"="+prog)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	uid, gid := os.Getuid(), os.Getgid()
	in := insideID(uid)
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: in, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: insideID(gid), HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = append(a.AmbientCaps, unix.CAP_SYS_ADMIN)
	return nil
}

// insideID is the id warden's id has inside the walls: its own, or nobody
// for root (root inside would keep capabilities, and a namespace it makes
// could not map its root).
func insideID(id int) int {
	if id == 0 {
		return 65534
	}
	return id
}

func withoutWallsEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, wallsEnv+"=") && !strings.HasPrefix(kv, wallsProgEnv+"=") && !strings.HasPrefix(kv, wallsProbeEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

var (
	wallsOnce sync.Once
	wallsWhy  string
)

// WallsAvailable says whether processes can start behind walls here (a
// user namespace may be made, and a tmpfs mounted in it); why is the
// reason when not. It tries once, with a program that exits at once.
func WallsAvailable() (ok bool, why string) {
	wallsOnce.Do(func() {
		cmd := exec.Command("/proc/self/exe")
		if err := Walls(cmd, WallSpec{}); err != nil {
			wallsWhy = err.Error()
			return
		}
		cmd.Env = append(cmd.Env, wallsProbeEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			wallsWhy = "no user namespace with a mount of its own here: " + strings.TrimSpace(fmt.Sprint(err, " ", string(out)))
		}
	})
	return wallsWhy == "", wallsWhy
}

// wallsProbeEnv makes the copy that builds the walls exit 0 once they
// stand, instead of running a program: WallsAvailable's try.
const wallsProbeEnv = "WARDEN_BOX_WALLS_PROBE"

// buildWallsAndExec is the copy of the binary behind the walls: it makes
// the read-only directories read-only (but their writable holes and its
// working directory), hides each path, makes the cgroup tree read-only,
// drops every capability and execs the agent's program (os.Args). It
// returns an exit code only when something failed.
func buildWallsAndExec(spec string) int {
	runtime.LockOSThread() // the capabilities dropped are this thread's, the one that execs
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "warden: the box's walls: %v\n", err)
		return 126
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail(fmt.Errorf("make the mounts private: %w", err))
	}
	var walls WallSpec
	if err := json.Unmarshal([]byte(spec), &walls); err != nil {
		return fail(fmt.Errorf("the walls' spec: %w", err))
	}
	if len(walls.ReadOnly) > 0 {
		wd, err := os.Getwd() // cmd.Dir: the agent's own work
		if err != nil {
			return fail(fmt.Errorf("the work dir: %w", err))
		}
		for _, p := range walls.ReadOnly {
			if err := readOnly(p, append(walls.Writable, wd)); err != nil {
				return fail(err)
			}
		}
		// Enter the work dir again, through the mounts just made: the one
		// entered before them is the writable directory under them.
		if err := os.Chdir(wd); err != nil {
			return fail(fmt.Errorf("the work dir: %w", err))
		}
	}
	for _, p := range walls.Hide {
		if err := hide(p); err != nil {
			return fail(err)
		}
	}
	if err := readOnly(cgroupRoot, nil); err != nil {
		return fail(err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("drop the capabilities: %w", err))
	}
	if os.Getenv(wallsProbeEnv) != "" {
		return 0
	}
	prog := os.Getenv(wallsProgEnv)
	err := unix.Exec(prog, os.Args, withoutWallsEnv(os.Environ()))
	return fail(fmt.Errorf("exec %s: %w", os.Args[0], err))
}

// hide covers p: a directory with an empty read-only tmpfs, anything else
// with /dev/null. A path that is not there is left: nothing to hide.
func hide(p string) error {
	if p == "" {
		return nil
	}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("hide %s: %w", p, err)
	case fi.IsDir():
		err = unix.Mount("none", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500")
	default:
		err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("hide %s: %w", p, err)
	}
	return nil
}
