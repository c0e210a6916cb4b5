package main

import (
	"io"
	"os"

	"github.com/wardenhq/warden/supervisor/hookbus"
)

// cmdHook is `warden hook KIND [ARG…]`, run by an agent CLI's hook, status
// line or notify program. It hands the payload to the supervisor (or its
// spool) and always succeeds within a second: a failing hook must never
// disturb the CLI. Failures are logged to STATE/logs/hook.log.
func cmdHook(args []string, stdout, _ io.Writer) error {
	_ = hookbus.RunHook(args, os.Stdin, stdout, hookbus.EnvFrom(os.Getenv))
	return nil
}
