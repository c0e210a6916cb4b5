package console

import "github.com/hashicorp/go-hclog"

// Printed is the key of a log line that repeats a line warden printed on
// stdout (a `WARNING:` line): `log.Warn(msg, ..., console.Printed, true)`.
// On a terminal the person has read it once already, so that log line goes
// to logs/warden.log only (Unprinted); piped, it stays on stderr too.
const Printed = "printed"

// Unprinted passes to sink every log line but those that carry Printed
// (true): the log a terminal's stderr shows beside warden's own lines.
func Unprinted(sink hclog.SinkAdapter) hclog.SinkAdapter { return unprinted{sink} }

type unprinted struct{ next hclog.SinkAdapter }

func (u unprinted) Accept(name string, level hclog.Level, msg string, args ...interface{}) {
	for i := 0; i+1 < len(args); i += 2 {
		if k, ok := args[i].(string); ok && k == Printed && args[i+1] == true {
			return
		}
	}
	u.next.Accept(name, level, msg, args...)
}
