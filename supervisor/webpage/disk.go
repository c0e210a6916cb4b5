package webpage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// The page the morning after: with no warden running the team (warden
// serve beside a finished or stopped run), the page shows the team as its
// state dir last holds it — state.json's agents and tasks, the newest
// events of events.jsonl — under "no warden running", never a blank page.

const (
	// diskEvents is how many of the newest events a page from disk gets
	// (the page keeps 200).
	diskEvents = 200
	// diskTail bounds what is read of events.jsonl for them.
	diskTail = 512 << 10
)

// Disk is the "disk" event: the team's last state, read from its state
// dir: PS as warden ps would have said it (Now is the time it is read, so
// that ages are counted to now), when state.json was written last, and how
// the run ended ("finished", "stopped"; "" when its supervisor died).
// Died: state.json says running and no warden holds the team's lock — its
// agents are shown as warden status shows them (state.MarkDied: unknown,
// with what each was doing), and the page says the team is dead.
type Disk struct {
	PS        *control.PS `json:"ps"`
	UpdatedAt time.Time   `json:"updated_at"`
	Ended     string      `json:"ended,omitempty"`
	Died      bool        `json:"died,omitempty"`
}

// fromDisk reads the team's last state and newest events from the state
// dir at root; ok is false when it holds no state.json.
func fromDisk(root string) (d Disk, events [][]byte, ok bool) {
	snap, err := state.ReadSnapshot(root)
	if err != nil || snap == nil {
		return Disk{}, nil, false
	}
	if snap.Running && !state.LockHeld(root) {
		snap.MarkDied()
	}
	ps := &control.PS{Team: snap.Team, Pid: snap.Pid, StateDir: root, StartedAt: snap.StartedAt, Now: time.Now(),
		RunID: snap.RunID, CarriedOn: snap.CarriedOn, Tasks: snap.Tasks, Usage: snap.Usage, Budget: snap.Budget,
		Overlaps: snap.Overlaps, Land: snap.Land}
	for _, a := range snap.Agents {
		ps.Agents = append(ps.Agents, control.Agent{AgentStatus: a})
	}
	if ps.Agents == nil {
		ps.Agents = []control.Agent{}
	}
	if ps.Tasks == nil {
		ps.Tasks = []queue.Status{}
	}
	return Disk{PS: ps, UpdatedAt: snap.UpdatedAt, Ended: snap.Ended, Died: snap.SupervisorDied}, lastEvents(state.NewLayout(root).Events()), true
}

// lastEvents is the newest diskEvents lines of events.jsonl at path, oldest
// first, read from its last diskTail bytes; a line that is not one JSON
// object is left out (a stream's data must be one line).
func lastEvents(path string) [][]byte {
	f, err := safefile.Open(path, os.O_RDONLY)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	from := max(fi.Size()-diskTail, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
	if err != nil {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if from > 0 && len(lines) > 0 {
		lines = lines[1:] // begun inside a line
	}
	var out [][]byte
	for _, l := range lines {
		if len(l) > 0 && l[0] == '{' && json.Valid(l) {
			out = append(out, l)
		}
	}
	return out[max(len(out)-diskEvents, 0):]
}

// sendDisk writes the team's last state from disk to a stream that found
// no warden, and its newest events; it reports whether there was any.
func (s *Server) sendDisk(w http.ResponseWriter) bool {
	if s.opts.StateDir == "" {
		return false
	}
	d, events, ok := fromDisk(s.opts.StateDir)
	if !ok {
		return false
	}
	s.fillRecords(d.PS)
	send(w, "disk", d)
	for _, e := range events {
		fmt.Fprintf(w, "event: event\ndata: %s\n\n", e)
	}
	return true
}
