package hookbus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/state"
)

const (
	// HookDeadline is how long `warden hook` may take in all; it returns
	// then even if the work is not done (the process exits 0). It is
	// SendTimeout and time to spool after it.
	HookDeadline = SendTimeout + 400*time.Millisecond
	// statusCmdTimeout bounds the user's own status line command.
	statusCmdTimeout = 400 * time.Millisecond
)

// HookEnv is what a hook process knows about its agent, from the
// environment warden set on the agent process.
type HookEnv struct {
	Agent, StateDir, Socket string
	// Getenv reads the rest of the environment (HOME, CODEX_HOME).
	Getenv func(string) string
	// whoAmI finds who spools (findSender); tests replace it.
	whoAmI func(agent string) (*Sender, error)
}

// EnvFrom reads the WARDEN_* variables with getenv.
func EnvFrom(getenv func(string) string) HookEnv {
	return HookEnv{Agent: getenv(EnvAgent), StateDir: getenv(EnvStateDir), Socket: getenv(EnvSocket), Getenv: getenv}
}

// RunHook is `warden hook KIND [ARG…]`: it reads the payload (stdin, or the
// last argument when the kind's profile.HookCall says so), sends it to the
// hook bus or spools it, and writes to stdout only what the CLI shows (a
// status line). It returns within HookDeadline whatever happens; failures
// go to STATE/logs/hook.log and come back as the error, which callers
// ignore (the CLI must not see a failing hook).
func RunHook(args []string, stdin io.Reader, stdout io.Writer, env HookEnv) error {
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- runHook(args, stdin, stdout, env, start) }()
	t := time.NewTimer(HookDeadline)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		err := fmt.Errorf("hook %s: gave up after %v", strings.Join(first(args), ""), HookDeadline)
		logFailure(env, first(args), err)
		return err
	}
}

func first(args []string) []string {
	if len(args) == 0 {
		return []string{""}
	}
	return args[:1]
}

func runHook(args []string, stdin io.Reader, stdout io.Writer, env HookEnv, start time.Time) error {
	err := hook(args, stdin, stdout, env, start)
	if err != nil {
		logFailure(env, first(args), err)
	}
	return err
}

func hook(args []string, stdin io.Reader, stdout io.Writer, env HookEnv, start time.Time) error {
	if len(args) == 0 {
		return fmt.Errorf("hook: no kind given")
	}
	kind := args[0]
	call, known := profile.HookCallOf(kind)
	if !known {
		return fmt.Errorf("hook: unknown kind %q", kind)
	}
	if call.ArgPayload {
		if len(args) < 2 {
			return fmt.Errorf("hook %s: no JSON argument", kind)
		}
		payload := []byte(args[len(args)-1])
		startUserNotify(args[1:len(args)-1], args[len(args)-1])
		return deliverThen(env, call, Message{Agent: env.Agent, Kind: kind, Payload: payload, At: start})
	}
	payload, err := io.ReadAll(io.LimitReader(stdin, maxMessage))
	if err != nil {
		return fmt.Errorf("hook %s: read stdin: %w", kind, err)
	}
	if call.StatusLine != nil {
		fmt.Fprintln(stdout, statusLine(call.StatusLine, payload, args[1:]))
	}
	return deliverThen(env, call, Message{Agent: env.Agent, Kind: kind, Payload: payload, At: start})
}

// statusLine is what the CLI shows: "warden: 42% context", after the first
// line of the user's own status line command when there is one.
func statusLine(gauge func([]byte) (float64, bool), payload []byte, userCmd []string) string {
	line := "warden"
	if pct, ok := gauge(payload); ok && !math.IsNaN(pct) {
		// What the CLI reports is shown as a gauge can be: 0–100 %.
		line = fmt.Sprintf("warden: %.0f%% context", min(max(pct, 0), 100))
	}
	if len(userCmd) == 0 || userCmd[0] == "" {
		return line
	}
	ctx, cancel := context.WithTimeout(context.Background(), statusCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", userCmd[0])
	cmd.Stdin = bytes.NewReader(payload)
	runner.InGroup(cmd, syscall.SIGKILL, 50*time.Millisecond) // its children die with it at the timeout
	out, _ := cmd.Output()
	user, _, _ := strings.Cut(strings.TrimRight(string(out), "\r\n"), "\n")
	if user == "" {
		return line
	}
	return user + " · " + line
}

// startUserNotify runs the user's own notify program with the JSON
// argument, detached: the hook does not wait for it.
func startUserNotify(argv []string, payload string) {
	if len(argv) == 0 {
		return
	}
	cmd := exec.Command(argv[0], append(slices.Clone(argv[1:]), payload)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// deliverThen sends m and then the message the kind's call finds after it
// in the CLI's own files, if any.
func deliverThen(env HookEnv, call profile.HookCall, m Message) error {
	err := deliver(env, m)
	if call.Then == nil {
		return err
	}
	kind, then, terr := call.Then(m.Payload, env.getenv)
	if terr != nil {
		return errors.Join(err, fmt.Errorf("hook %s: %w", m.Kind, terr))
	}
	if kind == "" {
		return err
	}
	return errors.Join(err, deliver(env, Message{Agent: env.Agent, Kind: kind, Payload: then, At: time.Now()}))
}

func (e HookEnv) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// deliver sends m, or spools it when the supervisor is not listening. A
// message the supervisor refused is not spooled. A spooled line carries
// who wrote it (Sender): a hook that does not run inside the process tree
// of the agent it names spools nothing.
func deliver(env HookEnv, m Message) error {
	if env.Agent == "" || env.StateDir == "" {
		return fmt.Errorf("hook %s: %s and %s must be set", m.Kind, EnvAgent, EnvStateDir)
	}
	sendErr := fmt.Errorf("no %s", EnvSocket)
	if env.Socket != "" {
		if sendErr = Send(env.Socket, m); sendErr == nil {
			return nil
		}
	}
	if errors.Is(sendErr, ErrRefused) {
		return fmt.Errorf("hook %s: %w", m.Kind, sendErr)
	}
	who := env.whoAmI
	if who == nil {
		who = findSender
	}
	sender, err := who(m.Agent)
	if err != nil {
		return fmt.Errorf("hook %s: send: %w; not spooled: %w", m.Kind, sendErr, err)
	}
	m.Sender = sender
	if err := Spool(env.StateDir, m); err != nil {
		return fmt.Errorf("hook %s: send: %w; spool: %w", m.Kind, sendErr, err)
	}
	return nil
}

// logFailure appends one line to STATE/logs/hook.log (0600). Nothing is
// logged when the state dir is unknown: stdout and stderr belong to the CLI
// (Gemini reads a hook's stderr as its answer).
func logFailure(env HookEnv, kind []string, err error) {
	if env.StateDir == "" {
		return
	}
	logPath := state.NewLayout(env.StateDir).HookLog()
	f, ferr := state.OpenPrivate(env.StateDir, logPath)
	if ferr != nil {
		return
	}
	defer f.Close()
	logger := hclog.New(&hclog.LoggerOptions{Name: "warden", Output: f, Level: hclog.Info}).Named("hook")
	logger.Error("hook failed", "kind", strings.Join(kind, ""), "agent", env.Agent, "error", err)
}
