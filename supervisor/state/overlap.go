package state

import (
	"fmt"
	"strings"
	"time"
)

// Overlap is two open tasks whose latest records name a common file
// (on_overlap): what state.json, warden ps, STATUS.md and the page show
// while both are open. Tasks and Agents are the first and the later;
// Action is "warn" or "serialize" (the later task held).
type Overlap struct {
	Tasks  []string  `json:"tasks"`
	Agents []string  `json:"agents"`
	Paths  []string  `json:"paths"`
	Action string    `json:"action"`
	At     time.Time `json:"at"`
}

// Line is the overlap in one line: "T1 (a) and T2 (b) both modify x.go;
// T2 held until T1 ends".
func (o Overlap) Line() string {
	if len(o.Tasks) != 2 || len(o.Agents) != 2 {
		return ""
	}
	s := fmt.Sprintf("%s (%s) and %s (%s) both modify %s", o.Tasks[0], o.Agents[0], o.Tasks[1], o.Agents[1],
		strings.Join(o.Paths, ", "))
	if o.Action == "serialize" {
		s += "; " + o.Tasks[1] + " held until " + o.Tasks[0] + " ends"
	}
	return s
}
