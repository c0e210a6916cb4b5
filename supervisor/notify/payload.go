package notify

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/runner"
)

// Variables each command finds in its environment.
const (
	EnvEvent      = "WARDEN_EVENT"      // the event's name
	EnvTeam       = "WARDEN_TEAM"       // the team's name
	EnvAgent      = "WARDEN_AGENT"      // the event's agent, "" if none
	EnvTask       = "WARDEN_TASK"       // the event's task, "" if none
	EnvSuppressed = "WARDEN_SUPPRESSED" // notifications held back since the last run for this (rule, event, agent)
)

// suppressedField is the key added to the JSON on stdin when notifications
// were held back.
const suppressedField = "suppressed"

// baseEnv returns environ without the variables set per run (the run's
// runner tag among them), so that a value inherited by warden never passes
// for one of them.
func baseEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case EnvEvent, EnvTeam, EnvAgent, EnvTask, EnvSuppressed, runner.RunnerTagEnv:
			continue
		}
		out = append(out, kv)
	}
	return out
}

// runEnv is the environment of one run.
func (n *Notifier) runEnv(j job) []string {
	env := make([]string, 0, len(n.env)+5)
	env = append(env, n.env...)
	return append(env,
		EnvEvent+"="+j.ev.Name,
		EnvTeam+"="+n.team,
		EnvAgent+"="+j.ev.Agent,
		EnvTask+"="+j.ev.Task,
		EnvSuppressed+"="+strconv.Itoa(j.suppressed),
	)
}

// payload is what a run reads on stdin: the event's line as written, ending
// in a newline, with "suppressed": N added as the object's last key when N > 0.
// A line that is not a JSON object is passed as it is.
func payload(line []byte, suppressed int) []byte {
	body := bytes.TrimRight(line, " \t\r\n")
	if suppressed > 0 {
		body = withSuppressed(body, suppressed)
	}
	out := make([]byte, 0, len(body)+1)
	out = append(out, body...)
	return append(out, '\n')
}

// withSuppressed adds (or replaces) the suppressed key of a JSON object,
// keeping the rest of the line byte for byte when the key is new.
func withSuppressed(obj []byte, n int) []byte {
	var fields map[string]json.RawMessage
	if bytes.IndexByte(obj, '{') != 0 || json.Unmarshal(obj, &fields) != nil {
		return obj
	}
	if _, dup := fields[suppressedField]; dup {
		fields[suppressedField] = json.RawMessage(strconv.Itoa(n))
		b, err := json.Marshal(fields)
		if err != nil {
			return obj
		}
		return b
	}
	sep := ","
	if len(fields) == 0 {
		sep = ""
	}
	out := make([]byte, 0, len(obj)+24)
	out = append(out, obj[:len(obj)-1]...) // a valid object ends in '}'
	out = append(out, sep+`"`+suppressedField+`":`+strconv.Itoa(n)+"}"...)
	return out
}
