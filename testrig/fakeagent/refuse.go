package fakeagent

import (
	"fmt"
	"os"
	"strings"
)

func init() { Register("refuse", modeRefuse) }

// modeRefuse is "refuse:CODE:TEXT": a CLI that refuses its configuration —
// it prints a banner line and TEXT (which may contain ':') on stderr, as
// such a CLI does, and exits CODE at once, before reading any input.
func modeRefuse(args []string) int {
	code := intArg(args, 0, 1)
	text := "configuration refused"
	if len(args) > 1 {
		text = strings.Join(args[1:], ":")
	}
	fmt.Fprintln(os.Stdout, "fake-cli 1.0")
	fmt.Fprintln(os.Stderr, "\x1b[31mError:\x1b[0m "+text)
	return code
}
