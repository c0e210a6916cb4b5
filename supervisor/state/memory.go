package state

// MemoryStatus is the team's memory as the page and `warden ps --json`
// show it: the admission's numbers (max_running, memory_floor, the agents
// running and waiting their turn, the last MemAvailable read), how
// memory_max is held (a cgroup, or the RSS watch and why), and the
// footprint warden expects of each CLI.
type MemoryStatus struct {
	MaxRunning int   `json:"max_running,omitempty"`
	Floor      int64 `json:"memory_floor,omitempty"`
	Running    int   `json:"running"`
	Waiting    int   `json:"waiting"`
	Available  int64 `json:"memory_available,omitempty"`
	// Limit is how memory_max is held: "cgroup" or "rss_watch" ("" when no
	// agent has one); LimitNote says why not a cgroup.
	Limit      string      `json:"memory_max_by,omitempty"`
	LimitNote  string      `json:"memory_max_note,omitempty"`
	Footprints []Footprint `json:"footprints,omitempty"`
}

// Footprint is what a session of one CLI is expected to hold.
type Footprint struct {
	Profile string `json:"profile"`
	Bytes   int64  `json:"bytes"`
	// Learned: from the sessions that ran (else the default), Sessions of
	// them.
	Learned  bool `json:"learned"`
	Sessions int  `json:"sessions"`
}
