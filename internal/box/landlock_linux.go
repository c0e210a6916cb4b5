package box

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ScopeABI is the first Landlock ABI with scopes (Linux 6.12).
const ScopeABI = 6

var (
	abiOnce sync.Once
	abi     int
	abiErr  error
)

// ABI is the running kernel's Landlock ABI version: 0 and the reason when
// Landlock is not there (an old kernel, or not enabled at boot).
func ABI() (int, error) {
	abiOnce.Do(func() {
		v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
		switch {
		case errno == unix.ENOSYS:
			abiErr = errors.New("the kernel has no Landlock (Linux 5.13 or later)")
		case errno == unix.EOPNOTSUPP:
			abiErr = errors.New("Landlock is not enabled in this kernel (lsm= boot parameter)")
		case errno != 0:
			abiErr = fmt.Errorf("landlock_create_ruleset: %w", errno)
		default:
			abi = int(v)
		}
	})
	return abi, abiErr
}

// Available says whether Scoped can scope here; why is the reason when not.
func Available() (ok bool, why string) {
	v, err := ABI()
	switch {
	case err != nil:
		return false, err.Error()
	case v < ScopeABI:
		return false, fmt.Sprintf("the kernel's Landlock ABI is %d; scopes need ABI %d (Linux 6.12)", v, ScopeABI)
	}
	return true, ""
}

// Scoped runs fork — a function that starts one process and returns — on a
// fresh OS thread restricted to a new Landlock domain with both scopes,
// so that the process it starts (and all it ever starts) is in that
// domain. The thread is thrown away afterwards. With the domain not
// available it returns the reason and does not run fork.
func Scoped(fork func() error) error {
	if ok, why := Available(); !ok {
		return errors.New("no box: " + why)
	}
	errc := make(chan error, 1)
	go onFreshThread(fork, errc)
	return <-errc
}

// onFreshThread runs fork on the goroutine's own thread once it is
// restricted, and sends its error. The main thread is never restricted: its
// id is warden's pid, the one a kill(2) of warden is judged by, and Go
// cannot end it (a locked goroutine's end only wedges it), so a domain put
// on it would stay. When the goroutine lands there, it holds the main
// thread locked while another goroutine — which therefore gets another
// thread — does the work.
func onFreshThread(fork func() error, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		defer runtime.UnlockOSThread()
		inner := make(chan error, 1)
		go onFreshThread(fork, inner)
		errc <- <-inner
		return
	}
	// Never unlocked: the thread ends with this goroutine, and with it the
	// domain warden itself must not be in.
	if err := restrictThread(); err != nil {
		errc <- err
		return
	}
	errc <- fork()
}

// restrictThread puts the calling thread into a new domain with the two
// scopes and no access right handled. no_new_privs is set first (on this
// thread only), as landlock_restrict_self requires it of a process without
// CAP_SYS_ADMIN: set-user-id programs run inside do not gain their owner's
// rights.
func restrictThread() error {
	attr := unix.LandlockRulesetAttr{Scoped: unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset (scopes): %w", errno)
	}
	defer unix.Close(int(fd))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
