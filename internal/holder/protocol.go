package holder

import (
	"fmt"
	"syscall"
	"time"
)

// The holder's protocol: one JSON object a line each way over the holder's
// unix socket. The holder speaks first (a Message of kind "hello" with
// ProtocolVersion); then the client sends Requests, each answered by
// exactly one Message of kind "reply" carrying the request's Seq, before
// which an "adopt" sends one Message of kind "adopted" per agent. Events
// (kind "event") come at any time between messages: the exit of an agent
// that ends at once may come before the reply to the start that made it.
// A pty master travels only as SCM_RIGHTS ancillary data beside the first
// byte of the one "adopted" Message whose FD is true; no other message
// carries a descriptor, and descriptors sent to the holder are closed
// unread.

// ProtocolVersion is sent in the hello; a client refuses another.
const ProtocolVersion = 1

// Request operations.
const (
	OpStart = "start" // start a process under a new pty (Request.Start)
	OpAdopt = "adopt" // take the masters of Request.IDs (none: every agent not taken)
	OpList  = "list"  // every agent, live and exited
	OpStop  = "stop"  // TERM the group of Request.ID, KILL what is left after the holder's StopTimeout
)

// Message kinds.
const (
	KindHello   = "hello"
	KindReply   = "reply"
	KindAdopted = "adopted"
	KindEvent   = "event"
)

// EventExited is the kind of the Event sent when an agent's process exits.
const EventExited = "exited"

// Request is one line from the client.
type Request struct {
	Seq   uint64        `json:"seq"` // echoed in the reply
	Op    string        `json:"op"`
	Start *StartRequest `json:"start,omitempty"`
	IDs   []string      `json:"ids,omitempty"` // adopt
	ID    string        `json:"id,omitempty"`  // stop
}

// StartRequest is what to run. Argv[0] is looked up in the holder's PATH;
// no shell. Env is the whole environment (nil: the holder's own); the
// holder adds its runner tag (runner.RunnerTagEnv) so that it can find
// what the process leaves behind.
type StartRequest struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	Rows uint16   `json:"rows,omitempty"` // 0: runner.DefaultRows
	Cols uint16   `json:"cols,omitempty"` // 0: runner.DefaultCols
	// The agent's box (runner.Config): the cgroup v2 directory it starts
	// in ("": the holder's), and a Landlock domain with the signal and
	// abstract-socket scopes.
	Cgroup string `json:"cgroup,omitempty"`
	Scoped bool   `json:"scoped,omitempty"`
	// Hide, ReadOnly and Writable are the box's walls (runner.Config,
	// box.WallSpec): the paths hidden from the agent, the directories it
	// sees read-only and the holes in them that stay writable.
	Hide     []string `json:"hide,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	Writable []string `json:"writable,omitempty"`
	// Adopt hands the new master to this client in the same request: an
	// "adopted" message before the reply, as an adopt of the new agent
	// sends, so that no other request comes between the start and the
	// handover (while one did, the holder's ring took the agent's first
	// output, and dropped what passed its size). A holder older than this
	// field sends no "adopted" message: the client adopts then.
	Adopt bool `json:"adopt,omitempty"`
}

// Message is one line from the holder.
type Message struct {
	Kind  string `json:"kind"`
	Seq   uint64 `json:"seq,omitempty"`   // reply, adopted: the request's
	Error string `json:"error,omitempty"` // reply: the request failed

	// hello
	Version int `json:"version,omitempty"`
	Pid     int `json:"pid,omitempty"` // the holder's

	Agent  *AgentInfo  `json:"agent,omitempty"`  // reply to start and stop; adopted
	Agents []AgentInfo `json:"agents,omitempty"` // reply to list and adopt

	// adopted: the output read while no client held the master, since the
	// last adoption (at most the ring's size: the newest bytes), the count
	// of older bytes dropped, and whether a master rides beside this line
	// (false for an agent that has exited: its output ends here).
	Output  []byte `json:"output,omitempty"`
	Dropped int64  `json:"dropped,omitempty"`
	FD      bool   `json:"fd,omitempty"`

	Event *Event `json:"event,omitempty"`
}

// Event is something that happened to an agent, sent to every connected
// client. A client that was not connected finds it in a list.
type Event struct {
	Kind  string    `json:"kind"` // EventExited
	Agent AgentInfo `json:"agent"`
}

// AgentInfo is one agent as the holder knows it.
type AgentInfo struct {
	ID      string      `json:"id"`
	Pid     int         `json:"pid"` // also its process group and session id
	Argv    []string    `json:"argv"`
	Started time.Time   `json:"started"`
	Adopted bool        `json:"adopted"`        // a connected client holds its master
	Exit    *ExitStatus `json:"exit,omitempty"` // set once it exited
}

// ExitStatus is how an agent's process ended, as wait4 told its parent.
type ExitStatus struct {
	Code   int       `json:"code"`             // -1 when killed by a signal
	Signal int       `json:"signal,omitempty"` // the signal that killed it
	At     time.Time `json:"at"`
}

// String is "exit code 3" or "signal: killed".
func (e ExitStatus) String() string {
	if e.Signal != 0 {
		return "signal: " + syscall.Signal(e.Signal).String()
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

func exitOf(ws syscall.WaitStatus, at time.Time) *ExitStatus {
	if ws.Signaled() {
		return &ExitStatus{Code: -1, Signal: int(ws.Signal()), At: at}
	}
	return &ExitStatus{Code: ws.ExitStatus(), At: at}
}
