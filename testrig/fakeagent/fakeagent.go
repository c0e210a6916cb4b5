package fakeagent

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// EnvMode names the mode the binary runs in, e.g. "lines:100".
const EnvMode = "WARDEN_FAKE_AGENT"

// EnvOwner carries the pid of the test process that started the fake agent;
// every descendant inherits it, which is how testrig/proctest finds leftovers.
const EnvOwner = "WARDEN_TEST_OWNER"

// ModeFunc runs a mode and returns the process exit code.
type ModeFunc func(args []string) int

var (
	modesMu sync.Mutex
	modes   = map[string]ModeFunc{}
)

// Register adds a mode. It panics when the name is empty, contains ':' or is
// already registered: two files claiming one name is a programming error.
func Register(name string, fn func(args []string) int) {
	if name == "" || strings.Contains(name, ":") || fn == nil {
		panic(fmt.Sprintf("fakeagent: invalid mode registration %q", name))
	}
	modesMu.Lock()
	defer modesMu.Unlock()
	if _, dup := modes[name]; dup {
		panic(fmt.Sprintf("fakeagent: mode %q registered twice", name))
	}
	modes[name] = fn
}

// Modes lists the registered mode names, sorted.
func Modes() []string {
	modesMu.Lock()
	defer modesMu.Unlock()
	names := make([]string, 0, len(modes))
	for n := range modes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Main runs the mode named by EnvMode and exits; it returns at once when
// EnvMode is not set. Call it first thing in TestMain.
func Main() {
	mode, ok := os.LookupEnv(EnvMode)
	if !ok {
		return
	}
	os.Exit(run(mode, extraArgs(os.Args)))
}

func run(mode string, extra []string) int {
	fields := strings.Split(mode, ":")
	modesMu.Lock()
	fn := modes[fields[0]]
	modesMu.Unlock()
	if fn == nil {
		fmt.Fprintf(os.Stderr, "fakeagent: unknown mode %q (known: %s)\n", fields[0], strings.Join(Modes(), ", "))
		return 97
	}
	return fn(append(fields[1:], extra...))
}

// extraArgs returns the arguments that follow "-test.run=^$" in argv.
func extraArgs(argv []string) []string {
	for i, a := range argv {
		if a == "-test.run=^$" {
			return argv[i+1:]
		}
	}
	return nil
}

// Command returns the argv that runs the current test binary as a fake agent;
// pass Env(mode) as its environment.
func Command(mode string, args ...string) []string {
	_ = mode // the mode travels in the environment (Env), not on the command line
	return append([]string{self(), "-test.run=^$"}, args...)
}

// Env returns the environment entries that select mode and mark the process
// (and its descendants) as started by this test process. It also sets
// GORACE atexit_sleep_ms=0 (keeping other GORACE options): a -race binary
// otherwise sleeps 1 s in every exit.
func Env(mode string) []string {
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return []string{EnvMode + "=" + mode, EnvOwner + "=" + strconv.Itoa(os.Getpid()), "GORACE=" + gorace}
}

// self is the path of the running binary: os.Args[0] when it is a path,
// otherwise the resolved executable.
func self() string {
	if strings.Contains(os.Args[0], "/") {
		return os.Args[0]
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}
