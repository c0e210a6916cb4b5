package config

// Values of on_limit: what an account's usage limit does to the run
// (DESIGN §6 "Account").
const (
	// OnLimitWait parks every agent of the account until the reset (plus a
	// margin), then lets them carry on.
	OnLimitWait = "wait"
	// OnLimitCheckpointExit ends the run with a team checkpoint and exit 0,
	// a WARNING naming the reset: a timer starts the next run after it.
	OnLimitCheckpointExit = "checkpoint-exit"
	DefaultOnLimit        = OnLimitWait
)

// MaxAccountLen bounds an account name: it is written to events,
// state.json and the report.
const MaxAccountLen = 100

// account reads an [[agent]]'s account: a non-empty name of plain text on
// one line, at most MaxAccountLen characters; "" when the key is absent
// (the default account).
func (d *decoder) account(t table) string {
	name, ok := t.nonEmpty("account")
	if !ok {
		return ""
	}
	if !d.plainText(t.key("account"), "account", name) {
		return ""
	}
	if n := len([]rune(name)); n > MaxAccountLen {
		d.errorf(t.key("account"), "account is %d characters: at most %d", n, MaxAccountLen)
		return ""
	}
	return name
}
