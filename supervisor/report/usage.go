package report

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/usage"
)

// Usage is the tokens and cost of the run, in all (Total), per agent
// (Agent.Usage) and per task (Task.Usage).
type Usage struct {
	// Recorded: the run's records carry what their sessions spent. When
	// false there are no figures and Note says why.
	Recorded bool   `json:"recorded"`
	Note     string `json:"note,omitempty"`
	// Sessions: how many sessions the figures come from.
	Sessions int    `json:"sessions"`
	Total    *Spend `json:"total,omitempty"`
}

// Spend is what some sessions spent.
type Spend struct {
	Tokens usage.Tokens `json:"tokens"`
	// CostUSD: dollars, of the sessions whose records priced them (the
	// CLI's own figure or a [[price]] row); Priced says whether any did.
	CostUSD float64 `json:"cost_usd"`
	Priced  bool    `json:"priced"`
}

// NotRecorded is the usage section's note when no record of the run
// carries tokens: its agents' CLIs named no token file to warden (a plain
// program), or the run is older than warden's token figures.
// The note fits one line of the page. (warden reads tokens from the files
// of Claude Code, Codex and Gemini CLI, which their hooks name.)
const NotRecorded = "not recorded: no record of this run carries tokens"

// recordUsage is what fillUsage reads of a record: the figures of its
// session so far (cumulative: a session's newest record has its total, and
// its last record is completed with the session's final figures once its
// process has ended). A record with {"usage": {"tokens": {input,
// cached_input, cache_write, output}, "cost_usd": N}} (protocol.Usage) is
// counted; a record without "usage" is not.
type recordUsage struct {
	SessionID string `json:"session_id"`
	Agent     string `json:"agent"`
	Task      string `json:"task_id"`
	Usage     *struct {
		Tokens  usage.Tokens `json:"tokens"`
		CostUSD *float64     `json:"cost_usd"`
	} `json:"usage"`
}

// fillUsage is the one place the report's tokens and cost come from: the
// run's records in the checkpoint history, each session counted once, at
// its largest figure. Records the retention policy removed are not
// counted (a task's newest record always stays).
func fillUsage(r *Report, root string, records []state.Entry) {
	dir := state.NewLayout(root).Checkpoints()
	best := map[string]recordUsage{}
	for _, e := range records {
		b, err := safefile.ReadFile(filepath.Join(dir, e.Path))
		if err != nil {
			continue
		}
		var ru recordUsage
		if json.Unmarshal(b, &ru) != nil || ru.Usage == nil {
			continue
		}
		key := ru.SessionID
		if key == "" {
			key = e.ID // a record without its session: counted alone
		}
		if old, ok := best[key]; !ok || ru.Usage.Tokens.Total() > old.Usage.Tokens.Total() {
			best[key] = ru
		}
	}
	if len(best) == 0 {
		r.Usage = Usage{Note: NotRecorded}
		return
	}
	keys := make([]string, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	total := &Spend{}
	tasks := map[string]*Task{}
	for i := range r.Tasks {
		tasks[r.Tasks[i].ID] = &r.Tasks[i]
	}
	agents := map[string]*Agent{}
	for i := range r.Agents {
		agents[r.Agents[i].Name] = &r.Agents[i]
	}
	for _, k := range keys {
		ru := best[k]
		total.add(ru)
		if t := tasks[plain(ru.Task)]; t != nil {
			t.Usage = t.Usage.plus(ru)
		}
		if a := agents[plain(ru.Agent)]; a != nil {
			a.Usage = a.Usage.plus(ru)
		}
	}
	r.Usage = Usage{Recorded: true, Sessions: len(best), Total: total}
}

// add adds a session's figures.
func (s *Spend) add(ru recordUsage) {
	s.Tokens = s.Tokens.Add(ru.Usage.Tokens)
	if c := ru.Usage.CostUSD; c != nil {
		s.CostUSD += *c
		s.Priced = true
	}
}

// plus is s (nil: nothing yet) with a session's figures added.
func (s *Spend) plus(ru recordUsage) *Spend {
	if s == nil {
		s = &Spend{}
	}
	s.add(ru)
	return s
}
